// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>

#include "kernel_version.h"

const char *gc_kernel_release(void)
{
	static struct utsname u;

	if (!u.release[0] && uname(&u))
		strcpy(u.release, "?");
	return u.release;
}

bool gc_kernel_at_least(int major, int minor)
{
	int maj = 0, min = 0;

	/* An unreadable release is no kernel's: newer than any we know. */
	if (sscanf(gc_kernel_release(), "%d.%d", &maj, &min) != 2)
		return true;
	return maj > major || (maj == major && min >= minor);
}
