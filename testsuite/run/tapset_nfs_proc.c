#include "tapset_nfs_loopback.h"

int main(void)
{
	return nfs_loopback_run();
}
