// SPDX-License-Identifier: GPL-2.0
/*
 * as_user UID GID COMMAND [ARGS...]: drop every privilege, then exec.
 * Clears the supplementary groups, sets the real, effective and saved ids,
 * and refuses to exec if any of them (or a capability) is still root's.
 * Used by the in-guest tests to run fuzzers and checks unprivileged.
 */
#define _GNU_SOURCE
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	uid_t uid, ru, eu, su;
	gid_t gid, rg, eg, sg;
	struct rlimit rl = { 0, 0 };

	if (argc < 4) {
		fprintf(stderr, "usage: as_user UID GID COMMAND [ARGS...]\n");
		return 2;
	}
	uid = (uid_t)strtoul(argv[1], NULL, 10);
	gid = (gid_t)strtoul(argv[2], NULL, 10);
	if (uid == 0 || gid == 0) {
		fprintf(stderr, "as_user: refusing to 'drop' to root\n");
		return 2;
	}
	/* No real-time priorities for the unprivileged user either. */
	setrlimit(RLIMIT_RTPRIO, &rl);
	if (setgroups(0, NULL) || setresgid(gid, gid, gid) || setresuid(uid, uid, uid)) {
		perror("as_user: dropping privileges");
		return 2;
	}
	if (getresuid(&ru, &eu, &su) || getresgid(&rg, &eg, &sg) ||
	    !ru || !eu || !su || !rg || !eg || !sg || setuid(0) == 0) {
		fprintf(stderr, "as_user: still privileged after the drop\n");
		return 2;
	}
	prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
	execvp(argv[3], argv + 3);
	perror("as_user: exec");
	return 127;
}
