//! CPU time and memory of processes, from Linux's /proc.

use std::time::Duration;

/// Clock ticks per second of /proc's CPU times (the Linux default).
const TICKS_PER_SECOND: f64 = 100.0;

/// CPU time (user + system) of process `pid` so far.
pub fn cpu(pid: u32) -> Option<Duration> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // Fields after the command name, which is in parentheses and may contain spaces.
    let fields: Vec<&str> = stat.rsplit_once(')')?.1.split_whitespace().collect();
    let utime: f64 = fields.get(11)?.parse().ok()?;
    let stime: f64 = fields.get(12)?.parse().ok()?;
    Some(Duration::from_secs_f64((utime + stime) / TICKS_PER_SECOND))
}

/// Peak resident memory of process `pid`, in KiB.
pub fn peak_rss_kib(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    status
        .lines()
        .find_map(|line| line.strip_prefix("VmHWM:"))
        .and_then(|value| value.split_whitespace().next()?.parse().ok())
}

/// Resident memory of process `pid` now, in KiB.
pub fn rss_kib(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    status
        .lines()
        .find_map(|line| line.strip_prefix("VmRSS:"))
        .and_then(|value| value.split_whitespace().next()?.parse().ok())
}

/// This process's CPU time so far.
pub fn own_cpu() -> Duration {
    cpu(std::process::id()).unwrap_or_default()
}
