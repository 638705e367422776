// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Loading provider plug-ins, as rdma-core 44 does and documents.
 *
 * Each regular file in the configuration directory (/etc/libibverbs.d, or
 * $IBV_CONFIG_DIR) holds lines "driver NAME"; blank lines and lines
 * starting with '#' are skipped, other lines ignored.  NAME is loaded with
 * dlopen(RTLD_NOW) as lib<NAME>-rdmav34.so (-rdmav65.so at rdma-core 65:
 * VERBS_PROVIDER_SUFFIX, provider_abi.h) from the provider directory
 * (VERBS_PROVIDER_DIR at build time, then Debian's multiarch directory, so
 * that a build installed under /usr/local still finds the distribution's
 * plug-ins, then the loader's search path); an absolute NAME is loaded as
 * NAME-rdmav34.so.  The plug-in's constructor registers its
 * verbs_device_ops with verbs_register_driver_34() (_65 at 65).
 *
 * Before those, the plug-ins RDMAV_DRIVERS names (or, when it is not set
 * at all, IBV_DRIVERS) are loaded the same way, so they are tried first:
 * names or paths separated by ':' or ';' (rdma-core 44's
 * libibverbs/dynamic_driver.c).  Not for set-user-ID or set-group-ID
 * programs, whose user must not choose the code they load.
 *
 * Loading happens once per process, the first time a scan finds a device
 * no built-in provider serves (the built-in ones head the registry, see
 * builtin_rxe).  Whatever fails (an unreadable file, a library that does
 * not load, one that registers nothing) is skipped with a message only
 * when VERBS_LOG_LEVEL asks for it.
 *
 * Locks.  The constructors run inside dlopen(), in the thread that loads,
 * while it holds load_lock (and the device list's lock): so registering
 * takes only reg_lock, which is never held across a call out of this
 * file, and readers walk the registry without a lock (it only grows, each
 * entry published complete with a release store).  A fork child resets
 * both locks like every other library lock (plugins_child_reset()).
 *
 * A fork while another thread is inside a plug-in's constructor leaves
 * the child with a library that glibc counts as initialised (dlopen()
 * there returns it without running a constructor again) and that never
 * registered: the thread that was to do it does not exist in the child.
 * The loader notes which library it is loading; a child that finds it
 * registered nothing runs that library's constructors (DT_INIT_ARRAY)
 * itself when its own load reaches it.  A plug-in's constructor only
 * registers, which is harmless to repeat.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ibverbs.h"
/* After it: <elf.h> defines EV_NONE, which ibverbs.h names too. */
#include <link.h>

struct plugin_reg {
	const struct verbs_device_ops *ops;
	struct plugin_reg *next;
	bool builtin;
};

/*
 * The providers built into the library head the registry from the start,
 * as a static build of rdma-core registers its providers before any
 * plug-in (facts: rdma-core 44's libibverbs/static_driver.c): so they are
 * matched first, and without loading a plug-in.
 */
static struct plugin_reg builtin_rxe = {
	.ops = &verbs_provider_rxe,
	.builtin = true,
};

static pthread_mutex_t reg_lock = PTHREAD_MUTEX_INITIALIZER;
static struct plugin_reg *reg_head = &builtin_rxe;
static struct plugin_reg **reg_tail = &builtin_rxe.next;
static unsigned int reg_count = 1;

static pthread_mutex_t load_lock = PTHREAD_MUTEX_INITIALIZER;
static bool plugins_loaded;

/*
 * The library inside dlopen() now, under load_lock, and the registry's
 * size before it; in a fork child, a copy of those of the load a parent
 * thread was in.
 */
static char loading_path[4096];
static unsigned int loading_before;
static bool loading;
static char interrupted_path[4096];
static unsigned int interrupted_before;
static bool interrupted;

static bool registered(const struct verbs_device_ops *ops)
{
	struct plugin_reg *r;

	for (r = reg_head; r; r = r->next)
		if (r->ops == ops)
			return true;
	return false;
}

IBV_EXPORT void VERBS_REGISTER_DRIVER(const struct verbs_device_ops *ops)
{
	struct plugin_reg *r;

	if (!ops || !ops->alloc_device || !ops->alloc_context) {
		verbs_log_lib(VERBS_LOG_WARN,
			      "libibverbs: ignoring a plug-in that registered "
			      "no device or context constructor\n");
		return;
	}
	r = calloc(1, sizeof(*r));
	if (!r)
		return;
	r->ops = ops;

	verbs_proc_enter();
	pthread_mutex_lock(&reg_lock);
	if (registered(ops)) {
		pthread_mutex_unlock(&reg_lock);
		free(r);
		return;
	}
	__atomic_store_n(reg_tail, r, __ATOMIC_RELEASE);
	reg_tail = &r->next;
	__atomic_add_fetch(&reg_count, 1, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&reg_lock);
	verbs_log_lib(VERBS_LOG_DEBUG, "libibverbs: plug-in %s registered\n",
		      ops->name ? ops->name : "(unnamed)");
}

/*
 * RDMAV_RXE_PROVIDER=plugin: rxe devices go to a plug-in (Debian's
 * librxe-rdmav34.so through rxe.driver) instead of the built-in provider,
 * whose registry entry is skipped.  secure_getenv(), as IBV_CONFIG_DIR:
 * the user of a set-uid program must not trade the built-in provider's
 * guarantees for a plug-in's.
 */
static bool builtin_skipped(const struct plugin_reg *r)
{
	const char *env;

	if (r != &builtin_rxe)
		return false;
	env = secure_getenv("RDMAV_RXE_PROVIDER");
	return env && !strcmp(env, "plugin");
}

const struct verbs_device_ops *verbs_plugin_next(const void **iter,
						 bool *builtin)
{
	const struct plugin_reg *r = *iter;

	do {
		r = r ? __atomic_load_n(&r->next, __ATOMIC_ACQUIRE)
		      : __atomic_load_n(&reg_head, __ATOMIC_ACQUIRE);
	} while (r && r->builtin && builtin_skipped(r));
	*iter = r;
	if (!r)
		return NULL;
	*builtin = r->builtin;
	return r->ops;
}

static unsigned int count_registered(void)
{
	return __atomic_load_n(&reg_count, __ATOMIC_ACQUIRE);
}

/*
 * Run @h's constructors, as the loader does (after DT_INIT, which
 * toolchains leave to the C runtime's own start-up code).
 */
static void run_constructors(void *h)
{
	typedef void (*init_fn)(int argc, char **argv, char **envp);
	struct link_map *lm = NULL;
	const ElfW(Dyn) *d;
	ElfW(Addr) array = 0;
	size_t size = 0, i;
	init_fn *fns;

	if (dlinfo(h, RTLD_DI_LINKMAP, &lm) || !lm || !lm->l_ld)
		return;
	for (d = lm->l_ld; d->d_tag != DT_NULL; d++) {
		if (d->d_tag == DT_INIT_ARRAY)
			array = d->d_un.d_ptr;
		else if (d->d_tag == DT_INIT_ARRAYSZ)
			size = d->d_un.d_val;
	}
	if (!array)
		return;
	fns = (init_fn *)(lm->l_addr + array);
	for (i = 0; i < size / sizeof(*fns); i++)
		if (fns[i] && fns[i] != (init_fn)-1)
			fns[i](0, NULL, environ);
}

static void *try_dlopen(const char *path)
{
	unsigned int before = count_registered();
	void *h;

	if (strlen(path) < sizeof(loading_path)) {
		strcpy(loading_path, path);
		loading_before = before;
		__atomic_store_n(&loading, true, __ATOMIC_SEQ_CST);
	}
	h = dlopen(path, RTLD_NOW);
	__atomic_store_n(&loading, false, __ATOMIC_SEQ_CST);
	if (!h) {
		verbs_log_lib(VERBS_LOG_DEBUG, "libibverbs: %s\n", dlerror());
		return NULL;
	}
	/*
	 * The library a parent thread was initialising when this child was
	 * forked: if it had not registered then, and has not now, its
	 * constructor was cut short.
	 */
	if (interrupted && !strcmp(path, interrupted_path)) {
		interrupted = false;
		if (before == interrupted_before &&
		    count_registered() == before) {
			verbs_log_lib(VERBS_LOG_INFO,
				      "libibverbs: %s was loading at fork(), "
				      "running its constructors again\n",
				      path);
			run_constructors(h);
		}
	}
	return h;
}

static void load_one(const char *name)
{
	static const char *const dirs[] = {
		VERBS_PROVIDER_DIR,
		VERBS_PROVIDER_FALLBACK_DIR,
	};
	unsigned int before = count_registered();
	char path[4096];
	void *h = NULL;
	size_t i;

	if (name[0] == '/') {
		if (snprintf(path, sizeof(path), "%s" VERBS_PROVIDER_SUFFIX,
			     name) < (int)sizeof(path))
			h = try_dlopen(path);
	} else {
		for (i = 0; !h && i < sizeof(dirs) / sizeof(dirs[0]); i++) {
			if (!dirs[i][0] || (i && !strcmp(dirs[i], dirs[0])))
				continue;
			if (snprintf(path, sizeof(path),
				     "%s/lib%s" VERBS_PROVIDER_SUFFIX, dirs[i],
				     name) < (int)sizeof(path))
				h = try_dlopen(path);
		}
		/* Last, the loader's own search path, as upstream. */
		if (!h && snprintf(path, sizeof(path),
				   "lib%s" VERBS_PROVIDER_SUFFIX,
				   name) < (int)sizeof(path))
			h = try_dlopen(path);
	}

	if (!h) {
		verbs_log_lib(VERBS_LOG_WARN,
			      "libibverbs: could not load driver '%s'\n",
			      name);
		return;
	}
	/* Already loaded (an application linked it) registers nothing. */
	if (count_registered() == before)
		verbs_log_lib(VERBS_LOG_INFO,
			      "libibverbs: %s registered no new driver\n",
			      path);
}

/* Load the drivers one configuration file names. */
static void read_config_file(const char *path)
{
	char *line = NULL, *p, *word, *save;
	size_t cap = 0;
	FILE *f;

	f = fopen(path, "re");
	if (!f) {
		verbs_log_lib(VERBS_LOG_WARN,
			      "libibverbs: cannot read config file %s\n",
			      path);
		return;
	}
	while (getline(&line, &cap, f) != -1) {
		p = line + strspn(line, " \t");
		if (*p == '#' || *p == '\n' || !*p)
			continue;
		word = strtok_r(p, " \t\n", &save);
		if (!word || strcmp(word, "driver")) {
			/* A warning, as upstream's: the file is wrong. */
			verbs_log_lib(VERBS_LOG_WARN,
				      "libibverbs: ignoring '%s' in %s\n",
				      word ? word : "", path);
			continue;
		}
		word = strtok_r(NULL, " \t\n", &save);
		if (word)
			load_one(word);
	}
	free(line);
	fclose(f);
}

static int by_name(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

static void read_config_dir(void)
{
	/* A set-uid program loads only what the system configures. */
	const char *dir = secure_getenv("IBV_CONFIG_DIR");
	struct dirent **ents;
	char path[4096];
	struct stat st;
	int n, i;

	if (!dir || !dir[0])
		dir = IBV_CONFIG_DIR;
	n = scandir(dir, &ents, NULL, by_name);
	if (n < 0) {
		verbs_log_lib(VERBS_LOG_WARN,
			      "libibverbs: cannot open config directory %s\n",
			      dir);
		return;
	}
	for (i = 0; i < n; i++) {
		if (ents[i]->d_name[0] != '.' &&
		    snprintf(path, sizeof(path), "%s/%s", dir,
			     ents[i]->d_name) < (int)sizeof(path) &&
		    !stat(path, &st) && S_ISREG(st.st_mode))
			read_config_file(path);
		free(ents[i]);
	}
	free(ents);
}

/* The plug-ins the environment names; an empty entry is skipped. */
static void load_env_drivers(void)
{
	const char *env;
	char *list, *name, *save;

	if (getuid() != geteuid())
		return;
	env = secure_getenv("RDMAV_DRIVERS");
	if (!env)
		env = secure_getenv("IBV_DRIVERS");
	if (!env || !env[0])
		return;
	list = strdup(env);
	if (!list)
		return;
	for (name = strtok_r(list, ":;", &save); name;
	     name = strtok_r(NULL, ":;", &save))
		load_one(name);
	free(list);
}

void verbs_plugins_load(void)
{
	int cancel;

	verbs_proc_enter();
	/* dlopen() and the files read are cancellation points. */
	cancel = verbs_nocancel_begin();
	pthread_mutex_lock(&load_lock);
	if (!plugins_loaded) {
		load_env_drivers();
		read_config_dir();
		plugins_loaded = true;
	}
	pthread_mutex_unlock(&load_lock);
	verbs_nocancel_end(cancel);
}

/*
 * In a child: a lock a thread of the parent held is reset.  A load that
 * was under way is done again (libraries already loaded just return their
 * handle, the one a constructor was running in is completed, see
 * try_dlopen()); an append to the registry that was under way either
 * published its entry or not, and the tail is found again from the list.
 */
static void plugins_child_reset(void)
{
	struct plugin_reg **t;

	if (pthread_mutex_trylock(&load_lock)) {
		pthread_mutex_init(&load_lock, NULL);
		plugins_loaded = false;
		interrupted = __atomic_load_n(&loading, __ATOMIC_SEQ_CST);
		loading = false;
		if (interrupted) {
			memcpy(interrupted_path, loading_path,
			       sizeof(interrupted_path));
			interrupted_before = loading_before;
		}
	} else {
		pthread_mutex_unlock(&load_lock);
	}
	if (pthread_mutex_trylock(&reg_lock)) {
		pthread_mutex_init(&reg_lock, NULL);
		reg_count = 0;
		for (t = &reg_head; *t; t = &(*t)->next)
			reg_count++;
		reg_tail = t;
	} else {
		pthread_mutex_unlock(&reg_lock);
	}
}

__attribute__((constructor)) static void plugins_register_child_reset(void)
{
	verbs_register_child_reset(VERBS_RESET_PLUGINS, plugins_child_reset);
}
