//! Wider pipes: a pipe holds 64 KiB by default, so a 1 MiB message crosses it in 16 rounds of
//! "writer fills it, reader wakes up and drains it". Widening the pipes the transports write
//! and read to [`PIPE_SIZE`] makes that one or two.

use std::os::fd::AsFd;

/// The capacity the transports ask for their pipes: 1 MiB, Linux's default
/// `/proc/sys/fs/pipe-max-size` (the most an unprivileged process may ask for).
pub(crate) const PIPE_SIZE: usize = 1 << 20;

/// Widens the pipe `fd` is an end of to [`PIPE_SIZE`], if it is narrower. Best effort: a
/// system with a lower limit, or a user past their pipe quota, keeps the pipe as it is (the
/// kernel refuses; nothing else changes).
pub(crate) fn widen(fd: impl AsFd) {
    #[cfg(any(target_os = "linux", target_os = "android"))]
    {
        use nix::fcntl::{FcntlArg, fcntl};
        let current = fcntl(&fd, FcntlArg::F_GETPIPE_SZ).unwrap_or(0);
        let wanted = i32::try_from(PIPE_SIZE).unwrap_or(i32::MAX);
        if current >= wanted {
            return;
        }
        if let Err(e) = fcntl(&fd, FcntlArg::F_SETPIPE_SZ(wanted)) {
            tracing::debug!(error = %e, current, "could not widen a pipe");
        }
    }
    #[cfg(not(any(target_os = "linux", target_os = "android")))]
    let _ = fd;
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use nix::fcntl::{FcntlArg, fcntl};

    use super::*;

    #[test]
    fn a_pipe_is_widened_and_never_narrowed() {
        let (read, write) = std::io::pipe().unwrap();
        assert_eq!(fcntl(&read, FcntlArg::F_GETPIPE_SZ).unwrap(), 64 * 1024);
        widen(&write);
        assert_eq!(fcntl(&read, FcntlArg::F_GETPIPE_SZ).unwrap(), 1 << 20);
        // Wider already: left alone.
        fcntl(&read, FcntlArg::F_SETPIPE_SZ(2 << 20)).ok();
        let before = fcntl(&read, FcntlArg::F_GETPIPE_SZ).unwrap();
        widen(&read);
        assert_eq!(fcntl(&read, FcntlArg::F_GETPIPE_SZ).unwrap(), before);
    }
}
