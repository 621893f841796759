/* SPDX-License-Identifier: GPL-2.0 */
/*
 * procfs("PATH").read and .write: files under /proc/systemtap/MODULE/. A
 * read of the file runs its read probe once, at open, into a buffer of the
 * probe's maxsize that the handler fills through $value; reads are then
 * served from it. A write runs the write probe once for each piece of up
 * to MAXSTRINGLEN - 1 bytes written, with the piece as $value.
 *
 * /proc/systemtap is shared by every module that has procfs files: made
 * by the first that needs it and left in place (proc entries belong to
 * procfs, not to the module, and another module's directory may sit in it).
 */
#include <linux/namei.h>
#include <linux/proc_fs.h>
#include <linux/seq_file.h>
#include <linux/slab.h>

/* A read probe's text, unless .maxsize(N) says (stap's default). */
#ifndef STP_PROCFS_BUFSIZE
#define STP_PROCFS_BUFSIZE MAXSTRINGLEN
#endif

/* What $value reads and writes in a procfs handler (c->family_data). */
struct _stpx_text {
	char *buf;
	size_t cap;	/* bytes, with the terminating NUL */
};

struct _stpx_procfs_dir {
	const char *name;	/* under its parent */
	int parent;		/* index of the parent, -1: the module's directory */
	struct proc_dir_entry *pde;
};

struct _stpx_procfs_file {
	const char *name;	/* under its directory */
	int dir;		/* index into the directories, -1: the module's */
	umode_t mode;
	size_t maxsize;		/* the read buffer, without the NUL */
	const struct _stpx_probe *read;
	const struct _stpx_probe *const *writes;	/* each write probe, in order */
	int nwrites;
	struct proc_dir_entry *pde;
};

static struct proc_dir_entry *_stpx_procfs_module;

static int _stpx_procfs_show(struct seq_file *m, void *v)
{
	const struct _stpx_procfs_file *f = m->private;
	struct _stpx_text text;

	text.cap = f->maxsize + 1;
	text.buf = kzalloc(text.cap, GFP_KERNEL);
	if (!text.buf)
		return -ENOMEM;
	_stpx_run_probe_data(f->read, &text);
	seq_write(m, text.buf, strnlen(text.buf, f->maxsize));
	kfree(text.buf);
	return 0;
}

static int _stpx_procfs_open(struct inode *inode, struct file *file)
{
	const struct _stpx_procfs_file *f = pde_data(inode);

	if (!f->read)
		return 0;	/* write only: nothing to prepare */
	/* Room for all of it: a smaller buffer would run the probe again. */
	return single_open_size(file, _stpx_procfs_show, (void *)f, f->maxsize + 1);
}

static ssize_t _stpx_procfs_read(struct file *file, char __user *buf, size_t count, loff_t *pos)
{
	const struct _stpx_procfs_file *f = pde_data(file_inode(file));

	if (!f->read)
		return -EINVAL;
	return seq_read(file, buf, count, pos);
}

static ssize_t _stpx_procfs_write(struct file *file, const char __user *buf, size_t count, loff_t *pos)
{
	const struct _stpx_procfs_file *f = pde_data(file_inode(file));
	struct _stpx_text text;
	size_t done = 0;
	int i;

	if (!f->nwrites)
		return -EINVAL;
	text.cap = MAXSTRINGLEN;
	text.buf = kmalloc(text.cap, GFP_KERNEL);
	if (!text.buf)
		return -ENOMEM;
	while (done < count) {
		size_t n = min_t(size_t, count - done, text.cap - 1);

		if (copy_from_user(text.buf, buf + done, n)) {
			kfree(text.buf);
			return done ? (ssize_t)done : -EFAULT;
		}
		text.buf[n] = '\0';
		for (i = 0; i < f->nwrites; i++)
			_stpx_run_probe_data(f->writes[i], &text);
		done += n;
	}
	kfree(text.buf);
	return count;
}

static int _stpx_procfs_release(struct inode *inode, struct file *file)
{
	const struct _stpx_procfs_file *f = pde_data(inode);

	return f->read ? single_release(inode, file) : 0;
}

static const struct proc_ops _stpx_procfs_ops = {
	.proc_open = _stpx_procfs_open,
	.proc_read = _stpx_procfs_read,
	.proc_write = _stpx_procfs_write,
	.proc_lseek = seq_lseek,
	.proc_release = _stpx_procfs_release,
};

static void _stpx_procfs_disarm(void)
{
	/* Waits for the files' open handles to finish their calls. */
	proc_remove(_stpx_procfs_module);
	_stpx_procfs_module = NULL;
}

static int _stpx_procfs_arm(struct _stpx_procfs_dir *dirs, size_t ndirs, struct _stpx_procfs_file *files,
			    size_t nfiles)
{
	struct path top;
	size_t i;

	if (kern_path("/proc/systemtap", LOOKUP_DIRECTORY, &top) == 0)
		path_put(&top);
	else if (!proc_mkdir("systemtap", NULL))
		return -ENOMEM;
	_stpx_procfs_module = proc_mkdir("systemtap/" KBUILD_MODNAME, NULL);
	if (!_stpx_procfs_module) {
		pr_err("cannot make /proc/systemtap/%s: is a module of that name loaded?\n", KBUILD_MODNAME);
		return -EEXIST;
	}
	for (i = 0; i < ndirs; i++) {
		struct proc_dir_entry *parent = dirs[i].parent < 0 ? _stpx_procfs_module : dirs[dirs[i].parent].pde;

		dirs[i].pde = proc_mkdir(dirs[i].name, parent);
		if (!dirs[i].pde)
			goto fail;
	}
	for (i = 0; i < nfiles; i++) {
		struct proc_dir_entry *dir = files[i].dir < 0 ? _stpx_procfs_module : dirs[files[i].dir].pde;

		files[i].pde = proc_create_data(files[i].name, files[i].mode, dir, &_stpx_procfs_ops, &files[i]);
		if (!files[i].pde)
			goto fail;
	}
	return 0;
fail:
	_stpx_procfs_disarm();
	return -ENOMEM;
}
