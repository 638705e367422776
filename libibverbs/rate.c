/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Static rate conversions.  The IB rate enum is not ordered by speed, so
 * every conversion goes through one table.  Only exact matches convert:
 * an unknown enum gives -1, an unknown multiplier or Mbit/s value gives
 * IBV_RATE_MAX, as upstream does.
 */
#include <infiniband/verbs.h>

#if __has_include("ibverbs.h")
#include "ibverbs.h"
#endif
#ifndef IBV_EXPORT
#define IBV_EXPORT __attribute__((visibility("default")))
#endif

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

struct rate_info {
	enum ibv_rate rate;
	/*
	 * Multiple of the 2.5 Gbit/s base rate; -1 for the FDR and EDR
	 * rates (64b/66b encoding), which are no whole multiple of it.
	 */
	int mult;
	/* Data rate in Mbit/s, rounded down. */
	int mbps;
};

static const struct rate_info rates[] = {
	{ IBV_RATE_2_5_GBPS, 1, 2500 },
	{ IBV_RATE_5_GBPS, 2, 5000 },
	{ IBV_RATE_10_GBPS, 4, 10000 },
	{ IBV_RATE_20_GBPS, 8, 20000 },
	{ IBV_RATE_30_GBPS, 12, 30000 },
	{ IBV_RATE_40_GBPS, 16, 40000 },
	{ IBV_RATE_60_GBPS, 24, 60000 },
	{ IBV_RATE_80_GBPS, 32, 80000 },
	{ IBV_RATE_120_GBPS, 48, 120000 },
	{ IBV_RATE_14_GBPS, -1, 14062 },
	{ IBV_RATE_56_GBPS, -1, 56250 },
	{ IBV_RATE_112_GBPS, -1, 112500 },
	{ IBV_RATE_168_GBPS, -1, 168750 },
	{ IBV_RATE_25_GBPS, -1, 25781 },
	{ IBV_RATE_100_GBPS, -1, 103125 },
	{ IBV_RATE_200_GBPS, -1, 206250 },
	{ IBV_RATE_300_GBPS, -1, 309375 },
	{ IBV_RATE_28_GBPS, 11, 28125 },
	{ IBV_RATE_50_GBPS, 20, 53125 },
	{ IBV_RATE_400_GBPS, 160, 425000 },
	{ IBV_RATE_600_GBPS, 240, 637500 },
	{ IBV_RATE_800_GBPS, 320, 850000 },
	{ IBV_RATE_1200_GBPS, 480, 1275000 },
};

static const struct rate_info *by_rate(enum ibv_rate rate)
{
	for (size_t i = 0; i < ARRAY_SIZE(rates); i++)
		if (rates[i].rate == rate)
			return &rates[i];
	return NULL;
}

IBV_EXPORT int ibv_rate_to_mult(enum ibv_rate rate)
{
	const struct rate_info *r = by_rate(rate);

	return r ? r->mult : -1;
}

IBV_EXPORT enum ibv_rate mult_to_ibv_rate(int mult)
{
	/* -1 marks "no multiple"; it must not match. */
	if (mult <= 0)
		return IBV_RATE_MAX;
	for (size_t i = 0; i < ARRAY_SIZE(rates); i++)
		if (rates[i].mult == mult)
			return rates[i].rate;
	return IBV_RATE_MAX;
}

IBV_EXPORT int ibv_rate_to_mbps(enum ibv_rate rate)
{
	const struct rate_info *r = by_rate(rate);

	return r ? r->mbps : -1;
}

IBV_EXPORT enum ibv_rate mbps_to_ibv_rate(int mbps)
{
	for (size_t i = 0; i < ARRAY_SIZE(rates); i++)
		if (rates[i].mbps == mbps)
			return rates[i].rate;
	return IBV_RATE_MAX;
}
