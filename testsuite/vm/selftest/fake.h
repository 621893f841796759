/*
 * Harness self-test: frame of the fake "stapx" modules.  A case's NAME.stp is
 * C that defines FAKE_OUT (what the module's debugfs file "out" reads),
 * optionally FAKE_SCRIPT (shell that fake-stapx-run sources after loading
 * the module) and FAKE_INIT() (run by the module's init), then this file is
 * appended.  Writing to debugfs "poke" counts pokes, shown in "out".
 */
#include <linux/module.h>
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/atomic.h>
#ifndef FAKE_SCRIPT
#define FAKE_SCRIPT ""
#endif
#ifndef FAKE_INIT
#define FAKE_INIT() do { } while (0)
#endif

static struct dentry *dir;
static atomic_t pokes;
static char obuf[4096];

static ssize_t out_read(struct file *f, char __user *buf, size_t n, loff_t *pos)
{
	int len = scnprintf(obuf, sizeof(obuf), "%s", FAKE_OUT);

	if (atomic_read(&pokes))
		len += scnprintf(obuf + len, sizeof(obuf) - len, "pokes=%d\n",
				 atomic_read(&pokes));
	return simple_read_from_buffer(buf, n, pos, obuf, len);
}

static ssize_t script_read(struct file *f, char __user *buf, size_t n, loff_t *pos)
{
	return simple_read_from_buffer(buf, n, pos, FAKE_SCRIPT, sizeof(FAKE_SCRIPT) - 1);
}

static ssize_t poke_write(struct file *f, const char __user *buf, size_t n, loff_t *pos)
{
	atomic_inc(&pokes);
	return n;
}

static const struct file_operations out_fops = { .owner = THIS_MODULE, .read = out_read };
static const struct file_operations script_fops = { .owner = THIS_MODULE, .read = script_read };
static const struct file_operations poke_fops = { .owner = THIS_MODULE, .write = poke_write };

static int __init fake_init(void)
{
	dir = debugfs_create_dir(KBUILD_MODNAME, NULL);
	debugfs_create_file("out", 0444, dir, NULL, &out_fops);
	debugfs_create_file("script", 0444, dir, NULL, &script_fops);
	debugfs_create_file("poke", 0222, dir, NULL, &poke_fops);
	FAKE_INIT();
	return 0;
}

static void __exit fake_exit(void)
{
	debugfs_remove_recursive(dir);
}

module_init(fake_init);
module_exit(fake_exit);
MODULE_LICENSE("GPL");
