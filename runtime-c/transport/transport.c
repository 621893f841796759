// SPDX-License-Identifier: GPL-2.0
/*
 * stapx transport, kernel side.  #included into the generated module after
 * transport.h; see protocol.h for the wire format and transport.h for the
 * interface.
 *
 * Design
 * ------
 * Files live in debugfs under stapx/<module>/.  The stapx/ directory is
 * shared by every loaded stapx module: it is created by whichever module
 * needs it first and is deliberately never removed.  Removing it "when
 * empty" cannot be done safely: init and exit of different modules run
 * concurrently and debugfs has no atomic remove-if-empty, so one module
 * could recursively delete a directory another module is populating.  An
 * empty directory in debugfs costs nothing.
 *
 * Data (traceN): one relay channel with a buffer per CPU (relay creates
 * the traceN files through our create_buf_file callback, for each online
 * CPU and for CPUs hotplugged later).  The channel runs in no-overwrite
 * mode: a full buffer drops new records and never overwrites old ones.
 * The exception is the flight recorder (STPX_FLIGHT, stapx -F) while no
 * stapx-run has ctl open: then the oldest sub-buffer is dropped instead,
 * and the buffer holds the latest output until someone attaches.
 *
 * _stpx_transport_write() is an open-coded relay_write(): with interrupts
 * off it makes room (relay_switch_subbuf() when the record does not fit in
 * the current sub-buffer, so a record never straddles two), takes the next
 * global sequence number, copies header and payload straight into the
 * sub-buffer and only then advances buf->offset, so a reader can never
 * see a half-written record (relay_reserve() would advance the offset
 * before the copy).  No staging copy, no allocation, no locks.  The
 * sequence number is taken only once the space is secured, so dropped
 * records leave no gaps in the sequence.  The writer checks for a free
 * sub-buffer itself before asking relay to switch; subbuf_start refusing
 * the switch remains only as a backstop.  Interrupts are off, so the only
 * way to re-enter the write on one CPU is an NMI (or a probe on something
 * we call); a per-CPU nesting counter catches that and the nested record
 * is dropped and counted.
 *
 * The traceN files use relay's open/poll/release and mmap (not writable)
 * but our own read() and ioctl().  relay's read() also returns the
 * unfinished current sub-buffer, but it reads the writer's state
 * (subbufs_produced, offset, data, padding) with no consistency check,
 * and relay_switch_subbuf() updates those fields one at a time in an
 * order that lets a concurrent read() copy stale bytes of the next
 * sub-buffer or skip a whole unread one; testing with small buffers hit
 * both (garbage headers, records lost but not counted).
 * _stpx_trace_span() takes a consistent snapshot instead: buf->data is
 * read before and after offset and subbufs_produced and the snapshot is
 * retried if a switch happened in between; a sub-buffer is readable up to
 * its padding once it is complete (produced past it), and the current one
 * only up to the committed offset, and only while buf->data already
 * points at it (between "produced++" and "data = new" the writer is
 * mid-switch and nothing new is readable).  stapx-run maps the buffer and
 * asks where that span is (STPX_TRACE_SPAN), writes the records from the
 * mapping, and then gives the sub-buffer back (STPX_TRACE_DONE): one copy
 * fewer than read(), which copies the span out.  Either way consumption
 * is reported with relay_subbufs_consumed() once the reader is done with
 * the bytes, which is what lets the writer reuse the sub-buffer.
 * relay_flush() is not used: everything committed is readable without
 * it, and it would switch other CPUs' buffers from this one.
 *
 * Control (ctl): a fixed ring of message slots allocated at init, each
 * holding a complete "<type> <text>\n" line.  Producers (any context)
 * take a raw spinlock with trylock, retrying a bounded number of times,
 * after a per-CPU nesting check so that an NMI that interrupts a producer
 * on its own CPU gives up at once instead of spinning on a lock its CPU
 * holds.  A message that cannot be queued is dropped and counted.  One slot
 * is kept back for the final 'D' message.  Readers are woken from an
 * irq_work, never directly, because a probe may fire with scheduler or
 * wait-queue locks held.  read() takes one message per call; a reader
 * mutex makes the slot at the ring's tail stable, so it is copied to user
 * space without the spinlock held and only then released.
 *
 * Commands written to ctl ("start", "stop") are serialised by a mutex and
 * call back into the session code, which runs begin/end probes
 * synchronously in the writer's context.  "start" is accepted once;
 * "stop" is accepted any time and always answers with 'D', but the
 * session is only stopped if it was started, and only once.  The 'D'
 * counters are the session's error and skipped counts plus everything the
 * transport dropped (records and control messages).
 *
 * Everything that may run in probe context is notrace and, where it is
 * not inlined, NOKPROBE_SYMBOL.
 */

#include <linux/atomic.h>
#include <linux/debugfs.h>
#include <linux/errno.h>
#include <linux/fs.h>
#include <linux/irq_work.h>
#include <linux/kernel.h>
#include <linux/kprobes.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/poll.h>
#include <linux/relay.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <linux/version.h>
#include <linux/vmalloc.h>
#include <linux/wait.h>

#include "transport.h"

/*
 * Relay geometry, per CPU; the generated code may override with -D (stapx
 * -s). 2 MiB: a probe printing 200-byte lines as fast as one CPU can
 * (bench/output-rate) fills it in about 20 ms, longer than the scheduler
 * may leave stapx-run waiting behind the traced task on that CPU (a
 * slice, a tick); 512 KiB took 5 ms, and a tenth of such lines were lost
 * while stapx-run, which writes them faster than they come, waited.
 */
#ifndef STPX_RELAY_SUBBUF_SIZE
#define STPX_RELAY_SUBBUF_SIZE 65536
#endif
#ifndef STPX_RELAY_N_SUBBUFS
#define STPX_RELAY_N_SUBBUFS 32
#endif

/* Control message slots (one is reserved for 'D'). */
#ifndef STPX_CTL_SLOTS
#define STPX_CTL_SLOTS 128
#endif

/* How often a producer retries the contended ctl lock before dropping. */
#ifndef STPX_CTL_SPINS
#define STPX_CTL_SPINS 1000
#endif

#if STPX_CTL_SLOTS < 2
#error "STPX_CTL_SLOTS must be at least 2"
#endif

/* --------------------------------------------------------------------- */
/* Data channel                                                          */
/* --------------------------------------------------------------------- */

static struct rchan *_stpx_chan;
/* stapx-runs with ctl open for reading: 0 (detached) or 1. */
static atomic_t _stpx_ctl_readers = ATOMIC_INIT(0);
static atomic64_t _stpx_seq = ATOMIC64_INIT(0);
static atomic_long_t _stpx_lost_records = ATOMIC_LONG_INIT(0);
static DEFINE_PER_CPU(int, _stpx_write_nest);

static notrace int _stpx_subbuf_start(struct rchan_buf *buf, void *subbuf,
				      void *prev_subbuf, size_t prev_padding)
{
	/* No-overwrite: stop logging while every sub-buffer is unread. */
	return !relay_buf_full(buf);
}
NOKPROBE_SYMBOL(_stpx_subbuf_start);

/*
 * The committed bytes of buf's oldest unconsumed sub-buffer (see the top
 * of the file): it starts at *sub, its unread part is
 * [buf->bytes_consumed, *end), and *complete says the writer has moved
 * past it. False while the writer is mid-switch (nothing new is readable
 * then). buf->bytes_consumed, which only relay's own read() uses, holds
 * the read position inside that sub-buffer. Under the file's inode lock.
 */
static bool _stpx_trace_span(struct rchan_buf *buf, char **sub, size_t *end, bool *complete)
{
	size_t size = buf->chan->subbuf_size;
	size_t n_subbufs = buf->chan->n_subbufs;

	for (;;) {
		size_t consumed = buf->subbufs_consumed;
		size_t off, produced;
		void *data;

		*sub = (char *)buf->start + (consumed % n_subbufs) * size;
		data = READ_ONCE(buf->data);
		smp_rmb();
		off = READ_ONCE(buf->offset);
		smp_rmb();
		produced = READ_ONCE(buf->subbufs_produced);
		smp_rmb();
		if (READ_ONCE(buf->data) != data)
			continue;	/* a switch happened: snapshot again */
		*complete = produced != consumed;
		if (*complete)
			*end = size - READ_ONCE(buf->padding[consumed % n_subbufs]);
		else if (data == *sub)
			*end = min(off, size);
		else
			return false;
		return true;
	}
}

/* The reader is done with [0, pos) of the span's sub-buffer. */
static void _stpx_trace_consume(struct rchan_buf *buf, size_t pos, size_t end, bool complete)
{
	buf->bytes_consumed = pos;
	if (complete && pos >= end) {
		/* The reader's copy is done before the writer may reuse it. */
		smp_mb();
		relay_subbufs_consumed(buf->chan, buf->cpu, 1);
		buf->bytes_consumed = 0;
	}
}

/* read() on traceN: copy out committed records. */
static ssize_t _stpx_trace_read(struct file *filp, char __user *ubuf,
				size_t count, loff_t *ppos)
{
	struct rchan_buf *buf = filp->private_data;
	ssize_t copied = 0;

	inode_lock(file_inode(filp));
	while (count) {
		size_t end, len;
		bool complete;
		char *sub;

		if (!_stpx_trace_span(buf, &sub, &end, &complete))
			break;
		len = 0;
		if (buf->bytes_consumed < end) {
			len = min(count, end - buf->bytes_consumed);
			if (copy_to_user(ubuf + copied,
					 sub + buf->bytes_consumed, len)) {
				if (!copied)
					copied = -EFAULT;
				break;
			}
			copied += len;
			count -= len;
		}
		_stpx_trace_consume(buf, buf->bytes_consumed + len, end, complete);
		/* On to the next sub-buffer only when this one was released. */
		if (!complete || buf->bytes_consumed)
			break;
	}
	inode_unlock(file_inode(filp));
	return copied;
}

/*
 * ioctl() on traceN, for a reader that maps the buffer (stapx-run) and so
 * copies nothing through read(): STPX_TRACE_SPAN says where the unread
 * committed bytes are in the mapping, STPX_TRACE_DONE({seq, pos}) that the
 * reader is done with sub-buffer seq up to pos, which releases it to the
 * writer once complete and read to its end (protocol.h).
 */
static long _stpx_trace_ioctl(struct file *filp, unsigned int cmd, unsigned long arg)
{
	struct rchan_buf *buf = filp->private_data;
	struct stpx_trace_span span = {
		.buf_size = buf->chan->alloc_size,
		.subbuf_size = buf->chan->subbuf_size,
	};
	struct stpx_trace_done done;
	size_t end;
	bool complete;
	char *sub;
	long ret = 0;

	if (cmd != STPX_TRACE_SPAN && cmd != STPX_TRACE_DONE)
		return -ENOTTY;
	if (cmd == STPX_TRACE_DONE &&
	    copy_from_user(&done, (void __user *)arg, sizeof(done)))
		return -EFAULT;
	inode_lock(file_inode(filp));
	if (!_stpx_trace_span(buf, &sub, &end, &complete)) {
		/* Mid-switch: nothing new is readable yet. */
		end = buf->bytes_consumed;
		complete = false;
	}
	if (cmd == STPX_TRACE_SPAN) {
		span.seq = buf->subbufs_consumed;
		span.subbuf = sub - (char *)buf->start;
		span.start = buf->bytes_consumed;
		span.end = end;
		span.complete = complete;
		if (copy_to_user((void __user *)arg, &span, sizeof(span)))
			ret = -EFAULT;
	} else if (done.seq != buf->subbufs_consumed) {
		ret = -ESTALE;
	} else if (done.pos < buf->bytes_consumed || done.pos > end) {
		ret = -EINVAL;
	} else {
		_stpx_trace_consume(buf, done.pos, end, complete);
	}
	inode_unlock(file_inode(filp));
	return ret;
}

/*
 * mmap() of a whole traceN buffer, never writable (relay checks the
 * length and maps its pages).
 */
static int _stpx_trace_mmap(struct file *filp, struct vm_area_struct *vma)
{
	if (vma->vm_flags & VM_WRITE)
		return -EPERM;
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 3, 0)
	vm_flags_clear(vma, VM_MAYWRITE);
#else
	vma->vm_flags &= ~VM_MAYWRITE;
#endif
	return relay_file_operations.mmap(filp, vma);
}

static int _stpx_trace_open(struct inode *inode, struct file *filp)
{
	return relay_file_operations.open(inode, filp);
}

static __poll_t _stpx_trace_poll(struct file *filp, poll_table *wait)
{
	return relay_file_operations.poll(filp, wait);
}

static int _stpx_trace_release(struct inode *inode, struct file *filp)
{
	return relay_file_operations.release(inode, filp);
}

static const struct file_operations _stpx_trace_fops = {
	.owner = THIS_MODULE,
	.open = _stpx_trace_open,
	.read = _stpx_trace_read,
	.unlocked_ioctl = _stpx_trace_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
	.mmap = _stpx_trace_mmap,
	.poll = _stpx_trace_poll,
	.release = _stpx_trace_release,
};

static struct dentry *_stpx_create_buf_file(const char *filename,
					    struct dentry *parent,
					    umode_t mode,
					    struct rchan_buf *buf,
					    int *is_global)
{
	struct dentry *d;

	*is_global = 0;
	/*
	 * Unsafe: debugfs's full proxy has no mmap(). Nothing here needs its
	 * protection: the files go only in module exit, which an open file
	 * (and so a mapping) holds off through the fops' owner.
	 */
	d = debugfs_create_file_unsafe(filename, mode, parent, buf,
				       &_stpx_trace_fops);
	return IS_ERR(d) ? NULL : d;
}

static int _stpx_remove_buf_file(struct dentry *dentry)
{
	debugfs_remove(dentry);
	return 0;
}

/* Not const: relay_open() took a non-const pointer before 5.11. */
static struct rchan_callbacks _stpx_relay_cb = {
	.subbuf_start = _stpx_subbuf_start,
	.create_buf_file = _stpx_create_buf_file,
	.remove_buf_file = _stpx_remove_buf_file,
};

/* One record of kind magic (STPX_REC_MAGIC: script output). */
static notrace int _stpx_transport_record(unsigned int magic, const char *data, size_t len)
{
	struct rchan *chan = READ_ONCE(_stpx_chan);
	struct stpx_rec_hdr hdr;
	size_t total = sizeof(hdr) + len;
	struct rchan_buf *buf;
	unsigned long flags;
	size_t ready;
	char *dst;
	int ret = -ENOSPC;

	if (unlikely(!chan || len > STPX_REC_MAX ||
		     total > chan->subbuf_size)) {
		atomic_long_inc(&_stpx_lost_records);
		return -ENOSPC;
	}

	local_irq_save(flags);
	if (unlikely(this_cpu_inc_return(_stpx_write_nest) != 1))
		goto out;
	buf = *this_cpu_ptr(chan->buf);
	if (unlikely(!buf))
		goto out;
	if (unlikely(buf->offset + total > chan->subbuf_size)) {
		/* Switching needs a free sub-buffer, else drop. */
		ready = buf->subbufs_produced -
			READ_ONCE(buf->subbufs_consumed);
		if (buf->offset <= chan->subbuf_size)
			ready++;	/* the one being closed */
#ifdef STPX_FLIGHT
		/*
		 * Flight recorder (stapx -F) with no stapx-run attached: the
		 * oldest unread sub-buffer gives way, so the buffer holds the
		 * latest output for whoever attaches (stapx-run -A). Nobody
		 * reads it meanwhile; a reader that attaches during this
		 * switch may see one torn sub-buffer, which stapx-run
		 * reports and resynchronizes past.
		 */
		if (ready >= chan->n_subbufs &&
		    !atomic_read(&_stpx_ctl_readers)) {
			buf->bytes_consumed = 0;
			WRITE_ONCE(buf->subbufs_consumed,
				   buf->subbufs_consumed + 1);
			ready--;
		}
#endif
		if (ready >= chan->n_subbufs ||
		    !relay_switch_subbuf(buf, total))
			goto out;
	}

	hdr.magic = magic;
	hdr.len = len;
	hdr.seq = atomic64_inc_return(&_stpx_seq);
	dst = (char *)buf->data + buf->offset;
	memcpy(dst, &hdr, sizeof(hdr));
	if (len)
		memcpy(dst + sizeof(hdr), data, len);
	/* Publish the bytes before the reader can see the new offset. */
	smp_wmb();
	WRITE_ONCE(buf->offset, buf->offset + total);
	ret = 0;
out:
	this_cpu_dec(_stpx_write_nest);
	local_irq_restore(flags);
	if (unlikely(ret))
		atomic_long_inc(&_stpx_lost_records);
	return ret;
}
NOKPROBE_SYMBOL(_stpx_transport_record);

notrace int _stpx_transport_write(const char *data, size_t len)
{
	return _stpx_transport_record(STPX_REC_MAGIC, data, len);
}
NOKPROBE_SYMBOL(_stpx_transport_write);

/*
 * switch_file(): a record without payload, in sequence with the output,
 * that tells the daemon to move on to the next output file there.
 */
notrace int _stpx_transport_switch_file(void)
{
	return _stpx_transport_record(STPX_REC_SWITCH_MAGIC, NULL, 0);
}
NOKPROBE_SYMBOL(_stpx_transport_switch_file);

/* --------------------------------------------------------------------- */
/* Control channel                                                       */
/* --------------------------------------------------------------------- */

struct _stpx_ctl_slot {
	unsigned int len;
	char line[STPX_MSG_MAX];
};

enum _stpx_state {
	_STPX_IDLE,		/* loaded, "start" not yet accepted */
	_STPX_RUNNING,		/* session started */
	_STPX_STOPPED,		/* "stop" seen (or start failed) */
};

static struct {
	raw_spinlock_t lock;		/* guards head/count, slot fill */
	struct _stpx_ctl_slot *ring;	/* STPX_CTL_SLOTS slots */
	unsigned int tail;		/* oldest message; reader only */
	unsigned int count;		/* queued messages */
	bool live;			/* accepting messages */
	struct mutex read_lock;		/* one reader at a time */
	wait_queue_head_t wq;
	struct irq_work work;
	atomic_long_t lost;		/* dropped control messages */
	struct mutex state_lock;	/* serialises commands and exit */
	enum _stpx_state state;
} _stpx_ctl = {
	.lock = __RAW_SPIN_LOCK_UNLOCKED(_stpx_ctl.lock),
	.read_lock = __MUTEX_INITIALIZER(_stpx_ctl.read_lock),
	.wq = __WAIT_QUEUE_HEAD_INITIALIZER(_stpx_ctl.wq),
	.lost = ATOMIC_LONG_INIT(0),
	.state_lock = __MUTEX_INITIALIZER(_stpx_ctl.state_lock),
	.state = _STPX_IDLE,
};

static DEFINE_PER_CPU(int, _stpx_ctl_nest);

static struct dentry *_stpx_root_dir;	/* stapx/, referenced */
static struct dentry *_stpx_mod_dir;	/* stapx/<module>/ */

static notrace void _stpx_ctl_queue(char type, const char *text,
				    bool last_slot)
{
	struct _stpx_ctl_slot *slot;
	unsigned long flags;
	unsigned int limit;
	size_t n = 0;
	int spins;

	if (text) {
		n = strnlen(text, STPX_MSG_MAX - 3);
		while (n && text[n - 1] == '\n')
			n--;
	}

	local_irq_save(flags);
	if (unlikely(this_cpu_inc_return(_stpx_ctl_nest) != 1))
		goto drop;
	for (spins = 0; !raw_spin_trylock(&_stpx_ctl.lock); spins++) {
		if (spins >= STPX_CTL_SPINS)
			goto drop;
		cpu_relax();
	}
	limit = last_slot ? STPX_CTL_SLOTS : STPX_CTL_SLOTS - 1;
	if (unlikely(!_stpx_ctl.live || _stpx_ctl.count >= limit)) {
		raw_spin_unlock(&_stpx_ctl.lock);
		goto drop;
	}
	slot = &_stpx_ctl.ring[(_stpx_ctl.tail + _stpx_ctl.count) %
			       STPX_CTL_SLOTS];
	slot->line[0] = type;
	slot->line[1] = ' ';
	if (n)
		memcpy(slot->line + 2, text, n);
	slot->line[n + 2] = '\n';
	slot->len = n + 3;
	/* Pairs with the acquire in _stpx_ctl_pending(). */
	smp_store_release(&_stpx_ctl.count, _stpx_ctl.count + 1);
	raw_spin_unlock(&_stpx_ctl.lock);
	irq_work_queue(&_stpx_ctl.work);
	this_cpu_dec(_stpx_ctl_nest);
	local_irq_restore(flags);
	return;
drop:
	this_cpu_dec(_stpx_ctl_nest);
	local_irq_restore(flags);
	atomic_long_inc(&_stpx_ctl.lost);
}
NOKPROBE_SYMBOL(_stpx_ctl_queue);

notrace void _stpx_ctl_send(char type, const char *text)
{
	_stpx_ctl_queue(type, text, false);
}
NOKPROBE_SYMBOL(_stpx_ctl_send);

static void _stpx_ctl_wakeup(struct irq_work *work)
{
	wake_up_interruptible(&_stpx_ctl.wq);
}

static bool _stpx_ctl_pending(void)
{
	return smp_load_acquire(&_stpx_ctl.count) != 0;
}

static void _stpx_send_done(void)
{
	unsigned long errors = 0, skipped = 0, lost;
	char text[64];

	_stpx_session_counters(&errors, &skipped);
	lost = atomic_long_read(&_stpx_lost_records) +
	       atomic_long_read(&_stpx_ctl.lost);
	snprintf(text, sizeof(text), "%lu %lu %lu", errors, skipped, lost);
	_stpx_ctl_queue(STPX_MSG_DONE, text, true);
}

/*
 * One reader at a time: the stapx-run that loaded the module or attached
 * to it (-A); a second one is refused while the first has ctl open.
 */
static int _stpx_ctl_open(struct inode *inode, struct file *file)
{
	if ((file->f_mode & FMODE_READ) &&
	    atomic_cmpxchg(&_stpx_ctl_readers, 0, 1) != 0)
		return -EBUSY;
	/* No file position, so read() and write() never share f_pos_lock. */
	return stream_open(inode, file);
}

static int _stpx_ctl_release(struct inode *inode, struct file *file)
{
	if (file->f_mode & FMODE_READ)
		atomic_set(&_stpx_ctl_readers, 0);
	return 0;
}

static ssize_t _stpx_ctl_read(struct file *file, char __user *ubuf,
			      size_t count, loff_t *ppos)
{
	struct _stpx_ctl_slot *slot;
	unsigned long flags;
	ssize_t ret;
	size_t len;

	if (!count)
		return 0;
	for (;;) {
		if (mutex_lock_interruptible(&_stpx_ctl.read_lock))
			return -ERESTARTSYS;
		if (_stpx_ctl_pending())
			break;
		mutex_unlock(&_stpx_ctl.read_lock);
		if (file->f_flags & O_NONBLOCK)
			return -EAGAIN;
		if (wait_event_interruptible(_stpx_ctl.wq, _stpx_ctl_pending()))
			return -ERESTARTSYS;
	}

	/*
	 * Producers never touch the tail slot while it is queued.  A short
	 * read gets the start of the line; the rest is discarded.
	 */
	slot = &_stpx_ctl.ring[_stpx_ctl.tail];
	len = min_t(size_t, count, slot->len);
	if (copy_to_user(ubuf, slot->line, len)) {
		ret = -EFAULT;
		goto out;
	}
	raw_spin_lock_irqsave(&_stpx_ctl.lock, flags);
	_stpx_ctl.tail = (_stpx_ctl.tail + 1) % STPX_CTL_SLOTS;
	_stpx_ctl.count--;
	raw_spin_unlock_irqrestore(&_stpx_ctl.lock, flags);
	ret = len;
out:
	mutex_unlock(&_stpx_ctl.read_lock);
	return ret;
}

static __poll_t _stpx_ctl_poll(struct file *file, poll_table *wait)
{
	__poll_t mask = EPOLLOUT | EPOLLWRNORM;

	poll_wait(file, &_stpx_ctl.wq, wait);
	if (_stpx_ctl_pending())
		mask |= EPOLLIN | EPOLLRDNORM;
	return mask;
}

static int _stpx_cmd_start(long target)
{
	int rc;
	char text[64];

	if (_stpx_ctl.state != _STPX_IDLE)
		return -EBUSY;
	rc = _stpx_session_start(target);
	if (rc) {
		_stpx_ctl.state = _STPX_STOPPED;
		snprintf(text, sizeof(text),
			 "module initialization failed (%d)", rc);
		_stpx_ctl_send(STPX_MSG_START_FAILED, text);
		return 0;
	}
	_stpx_ctl.state = _STPX_RUNNING;
	_stpx_ctl_send(STPX_MSG_STARTED, NULL);
	return 0;
}

static void _stpx_cmd_stop(void)
{
	if (_stpx_ctl.state == _STPX_RUNNING)
		_stpx_session_stop();
	_stpx_ctl.state = _STPX_STOPPED;
	/*
	 * Everything written so far is committed and readable (no
	 * relay_flush(), see top), so 'D' can go out right away.
	 */
	_stpx_send_done();
}

static ssize_t _stpx_ctl_write(struct file *file, const char __user *ubuf,
			       size_t count, loff_t *ppos)
{
	char buf[32], *cmd;
	size_t n = strlen(STPX_CMD_START);
	long target;
	int rc = 0;

	if (count >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, count))
		return -EFAULT;
	buf[count] = '\0';
	cmd = strim(buf);

	if (mutex_lock_interruptible(&_stpx_ctl.state_lock))
		return -ERESTARTSYS;
	if (!strcmp(cmd, STPX_CMD_START))
		rc = _stpx_cmd_start(0);
	else if (!strncmp(cmd, STPX_CMD_START " ", n + 1) &&
		 !kstrtol(cmd + n + 1, 10, &target) && target > 0 &&
		 target <= PID_MAX_LIMIT)
		rc = _stpx_cmd_start(target);
	else if (!strcmp(cmd, STPX_CMD_STOP))
		_stpx_cmd_stop();
	else
		rc = -EINVAL;
	mutex_unlock(&_stpx_ctl.state_lock);
	return rc ? rc : count;
}

static const struct file_operations _stpx_ctl_fops = {
	.owner = THIS_MODULE,
	.open = _stpx_ctl_open,
	.release = _stpx_ctl_release,
	.read = _stpx_ctl_read,
	.write = _stpx_ctl_write,
	.poll = _stpx_ctl_poll,
};

/* --------------------------------------------------------------------- */
/* Setup and teardown                                                    */
/* --------------------------------------------------------------------- */

/* Find or create the shared stapx/ directory; returns a referenced dentry. */
static struct dentry *_stpx_get_root_dir(void)
{
	struct dentry *d;
	int tries;

	for (tries = 0; tries < 5; tries++) {
		d = debugfs_lookup(STPX_DEBUGFS_DIR, NULL);
		if (d) {
			if (d_is_dir(d))
				return d;
			dput(d);
			return ERR_PTR(-ENOTDIR);
		}
		d = debugfs_create_dir(STPX_DEBUGFS_DIR, NULL);
		if (!IS_ERR_OR_NULL(d))
			return dget(d);
		if (!d)
			return ERR_PTR(-ENOMEM);
		if (PTR_ERR(d) != -EEXIST)
			return d;
		/* Another module created it meanwhile: look it up again. */
	}
	return ERR_PTR(-EEXIST);
}

/* What _stpx_transport_init() will allocate: the control ring, and the
 * relay buffers of each online CPU (relay_open() fills those at once). */
u64 _stpx_transport_bytes(void)
{
	return (u64)sizeof(struct _stpx_ctl_slot) * STPX_CTL_SLOTS +
	       (u64)num_online_cpus() * STPX_RELAY_SUBBUF_SIZE * STPX_RELAY_N_SUBBUFS;
}

int _stpx_transport_init(void)
{
	struct rchan *chan;
	struct dentry *d;
	int rc;

	_stpx_ctl.ring = vzalloc(sizeof(*_stpx_ctl.ring) * STPX_CTL_SLOTS);
	if (!_stpx_ctl.ring)
		return -ENOMEM;
	init_irq_work(&_stpx_ctl.work, _stpx_ctl_wakeup);
	_stpx_ctl.tail = 0;
	_stpx_ctl.count = 0;
	_stpx_ctl.state = _STPX_IDLE;
	_stpx_ctl.live = true;

	d = _stpx_get_root_dir();
	if (IS_ERR(d)) {
		rc = PTR_ERR(d);
		goto err_ring;
	}
	_stpx_root_dir = d;

	d = debugfs_create_dir(THIS_MODULE->name, _stpx_root_dir);
	if (IS_ERR_OR_NULL(d)) {
		rc = d ? PTR_ERR(d) : -ENOMEM;
		goto err_root;
	}
	_stpx_mod_dir = d;

	chan = relay_open(STPX_TRACE_PREFIX, _stpx_mod_dir,
			  STPX_RELAY_SUBBUF_SIZE, STPX_RELAY_N_SUBBUFS,
			  &_stpx_relay_cb, NULL);
	if (!chan) {
		rc = -ENOMEM;
		goto err_dir;
	}
	WRITE_ONCE(_stpx_chan, chan);

	d = debugfs_create_file(STPX_CTL_FILE, 0600, _stpx_mod_dir, NULL,
				&_stpx_ctl_fops);
	if (IS_ERR_OR_NULL(d)) {
		rc = d ? PTR_ERR(d) : -ENOMEM;
		goto err_chan;
	}
	return 0;

err_chan:
	WRITE_ONCE(_stpx_chan, NULL);
	relay_close(chan);
err_dir:
	debugfs_remove(_stpx_mod_dir);
	_stpx_mod_dir = NULL;
err_root:
	dput(_stpx_root_dir);
	_stpx_root_dir = NULL;
err_ring:
	_stpx_ctl.live = false;
	vfree(_stpx_ctl.ring);
	_stpx_ctl.ring = NULL;
	return rc;
}

void _stpx_transport_exit(void)
{
	struct rchan *chan = _stpx_chan;
	unsigned long flags;

	/*
	 * Normally the daemon has sent "stop"; if it died (or the module is
	 * removed by hand) the probes must still be disarmed before their
	 * code and the buffers go away.  The ctl file cannot be open here: an
	 * open file pins the module.
	 */
	mutex_lock(&_stpx_ctl.state_lock);
	if (_stpx_ctl.state == _STPX_RUNNING)
		_stpx_session_stop();
	_stpx_ctl.state = _STPX_STOPPED;
	mutex_unlock(&_stpx_ctl.state_lock);

	/* No new messages or records; finish a pending reader wakeup. */
	raw_spin_lock_irqsave(&_stpx_ctl.lock, flags);
	_stpx_ctl.live = false;
	raw_spin_unlock_irqrestore(&_stpx_ctl.lock, flags);
	WRITE_ONCE(_stpx_chan, NULL);
	irq_work_sync(&_stpx_ctl.work);

	if (chan)
		relay_close(chan);	/* removes traceN via remove_buf_file */
	debugfs_remove(_stpx_mod_dir);	/* ctl and the directory */
	_stpx_mod_dir = NULL;
	dput(_stpx_root_dir);
	_stpx_root_dir = NULL;
	vfree(_stpx_ctl.ring);
	_stpx_ctl.ring = NULL;
}
