#ifndef GESTURED_CSYSTEMCALLS_SHIM_H
#define GESTURED_CSYSTEMCALLS_SHIM_H
/* Linux calls the Glibc module hides behind _GNU_SOURCE, for SystemCalls (the one place
   that makes them). Each returns what the call returns: a value, or -1 with errno. */
#include <sys/types.h>
#include <sys/socket.h>
#include <fcntl.h>
/* epoll's EPOLLIN/EPOLLOUT/... flags, for SystemCalls' IOEvents (the daemon's loop, Systemd.EventLoop, is on sd-event's epoll). */
#include <sys/epoll.h>

/* struct ucred's layout (SO_PEERCRED). */
struct gestured_peer_credentials {
    pid_t pid;
    uid_t uid;
    gid_t gid;
};

/* The credentials of a Unix socket's peer; 0 or -1 with errno. */
static inline int gestured_get_peer_credentials(int fd, struct gestured_peer_credentials *out) {
    socklen_t length = sizeof(*out);
    return getsockopt(fd, SOL_SOCKET, 17 /* SO_PEERCRED */, out, &length);
}

/* accept4 with SOCK_NONBLOCK | SOCK_CLOEXEC; the fd or -1 with errno. */
static inline int gestured_accept_nonblocking(int fd) {
    extern int accept4(int, struct sockaddr *, socklen_t *, int);
    return accept4(fd, (struct sockaddr *)0, (socklen_t *)0, SOCK_NONBLOCK | SOCK_CLOEXEC);
}

/* renameat2 with RENAME_NOREPLACE: fails with EEXIST rather than replace `newname`; 0 or
   -1 with errno. */
static inline int gestured_rename_noreplace(int olddirfd, const char *oldname, int newdirfd, const char *newname) {
    extern int renameat2(int, const char *, int, const char *, unsigned int);
    return renameat2(olddirfd, oldname, newdirfd, newname, 1 /* RENAME_NOREPLACE */);
}

/* pipe2 with O_CLOEXEC: both ends close-on-exec from the start (no window in which another
   thread's spawn could inherit them); 0 or -1 with errno. */
static inline int gestured_pipe_cloexec(int ends[2]) {
    extern int pipe2(int[2], int);
    return pipe2(ends, O_CLOEXEC);
}

#include <spawn.h>
/* glibc 2.34's posix_spawn_file_actions_addclosefrom_np: the child closes every descriptor
   from `from` on after the other file actions; 0 or an errno value. */
static inline int gestured_spawn_close_from(posix_spawn_file_actions_t *actions, int from) {
    extern int posix_spawn_file_actions_addclosefrom_np(posix_spawn_file_actions_t *, int);
    return posix_spawn_file_actions_addclosefrom_np(actions, from);
}
#endif
