/* SPDX-License-Identifier: GPL-2.0 */
/*
 * perf.type(T).config(C)[.sample(N) | .hz(F)]: a kernel perf event counter
 * on every online CPU, whose overflow (every N events, or F times a
 * second) runs the probe with the interrupted registers.
 */
#include <linux/perf_event.h>

struct _stpx_perf {
	const struct _stpx_probe *probe;
	u32 type;
	u64 config;
	u64 period;	/* events per hit, or hits per second with freq */
	int freq;
	struct perf_event **events;	/* one per possible CPU, NULL where none */
};

static notrace void _stpx_perf_overflow(struct perf_event *event, struct perf_sample_data *data,
					struct pt_regs *regs)
{
	const struct _stpx_perf *p = event->overflow_handler_context;

	_stpx_run_probe(p->probe, regs);
}

static void _stpx_perf_disarm(struct _stpx_perf *p, size_t n)
{
	size_t i;
	int cpu;

	for (i = 0; i < n; i++) {
		if (!p[i].events)
			continue;
		for_each_possible_cpu(cpu)
			if (p[i].events[cpu])
				perf_event_release_kernel(p[i].events[cpu]);
		kfree(p[i].events);
		p[i].events = NULL;
	}
}

static int _stpx_perf_arm(struct _stpx_perf *p, size_t n)
{
	size_t i;
	int cpu, rc;

	for (i = 0; i < n; i++) {
		struct perf_event_attr attr = {
			.type = p[i].type,
			.size = sizeof(attr),
			.config = p[i].config,
			.freq = p[i].freq,
			.sample_period = p[i].period,
		};

		p[i].events = kcalloc(nr_cpu_ids, sizeof(*p[i].events), GFP_KERNEL);
		if (!p[i].events)
			goto fail_nomem;
		cpus_read_lock();
		for_each_online_cpu(cpu) {
			struct perf_event *e = perf_event_create_kernel_counter(&attr, cpu, NULL,
										 _stpx_perf_overflow, &p[i]);

			if (IS_ERR(e)) {
				rc = PTR_ERR(e);
				cpus_read_unlock();
				pr_err("perf event type %u config %llu on CPU %d: error %d\n", p[i].type,
				       (unsigned long long)p[i].config, cpu, rc);
				_stpx_perf_disarm(p, i + 1);
				return rc;
			}
			p[i].events[cpu] = e;
		}
		cpus_read_unlock();
	}
	return 0;
fail_nomem:
	_stpx_perf_disarm(p, i);
	return -ENOMEM;
}
