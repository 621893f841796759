/* SPDX-License-Identifier: GPL-2.0 */
/*
 * netfilter.hook("HOOK").pf("PF")[.priority("P")]: a netfilter hook in the
 * initial network namespace per probe. The handler sees the hook number,
 * the packet and its devices, and (guru mode) sets the verdict, accept
 * unless it says otherwise.
 */
#include <linux/netfilter.h>
#include <linux/netfilter_ipv4.h>
#include <linux/netfilter_ipv6.h>
#include <linux/skbuff.h>
#include <net/net_namespace.h>

/* What a handler's $hooknum, $skb, $in, $out and $verdict are (c->family_data). */
struct _stpx_nf_hit {
	unsigned int hooknum;
	struct sk_buff *skb;
	const struct net_device *in, *out;
	unsigned int verdict;
};

struct _stpx_nf_hook {
	const struct _stpx_probe *probe;
	struct nf_hook_ops ops;
	int armed;
};

static notrace unsigned int _stpx_nf_fn(void *priv, struct sk_buff *skb, const struct nf_hook_state *state)
{
	const struct _stpx_nf_hook *h = priv;
	struct _stpx_nf_hit hit = {
		.hooknum = state->hook, .skb = skb, .in = state->in, .out = state->out, .verdict = NF_ACCEPT,
	};

	_stpx_run_probe_data(h->probe, &hit);
	return hit.verdict;
}

static void _stpx_nf_disarm(struct _stpx_nf_hook *h, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (h[i].armed)
			nf_unregister_net_hook(&init_net, &h[i].ops);
		h[i].armed = 0;
	}
}

static int _stpx_nf_arm(struct _stpx_nf_hook *h, size_t n)
{
	size_t i;
	int rc;

	for (i = 0; i < n; i++) {
		h[i].ops.hook = _stpx_nf_fn;
		h[i].ops.priv = &h[i];
		rc = nf_register_net_hook(&init_net, &h[i].ops);
		if (rc) {
			_stpx_nf_disarm(h, i);
			return rc;
		}
		h[i].armed = 1;
	}
	return 0;
}
