//! A program destbench runs and times (a backup tool under `estimate --tool`): started in a
//! process group of its own (a Job Object on Windows), so a hung tool is stopped with what it
//! started; and the CPU time it used, which says whether its own work or what it waits on sets
//! its pace.

use std::io;
use std::process::{Child, Command, ExitStatus};
use std::time::Duration;

/// Whether `program` is on the PATH (or, with a directory in it, is there).
pub fn program_exists(program: &str) -> bool {
    let exe = format!("{program}{}", std::env::consts::EXE_SUFFIX);
    let found = |dir: &std::path::Path| dir.join(program).is_file() || dir.join(&exe).is_file();
    if std::path::Path::new(program).components().count() > 1 {
        return found(std::path::Path::new(""));
    }
    std::env::var_os("PATH").is_some_and(|path| std::env::split_paths(&path).any(|d| found(&d)))
}

/// Starts `command`'s program in a process group of its own (Unix; Windows: see [`Group`]).
pub fn own_process_group(command: &mut Command) {
    #[cfg(unix)]
    std::os::unix::process::CommandExt::process_group(command, 0);
    #[cfg(windows)]
    let _ = command;
}

/// A started program with what it starts: on Unix its process group (see
/// [`own_process_group`]); on Windows a Job Object it joins once started.
pub struct Group {
    #[cfg(windows)]
    job: Option<super::windows::Job>,
}

impl Group {
    /// The group of `child`, started with [`own_process_group`]. On Windows a job that cannot
    /// be made (an old system's nested job) leaves the child alone: [`Group::kill`] then ends
    /// the child only.
    pub fn of(child: &Child) -> Group {
        #[cfg(unix)]
        {
            let _ = child;
            Group {}
        }
        #[cfg(windows)]
        Group {
            job: super::windows::Job::holding(child).ok(),
        }
    }

    /// Kills `child` and everything in its group.
    pub fn kill(&self, child: &mut Child) -> io::Result<()> {
        #[cfg(unix)]
        {
            let pid = rustix::process::Pid::from_child(child);
            rustix::process::kill_process_group(pid, rustix::process::Signal::KILL)
                .map_err(io::Error::from)
        }
        #[cfg(windows)]
        match &self.job {
            Some(job) => job.terminate().or_else(|_| child.kill()),
            None => child.kill(),
        }
    }
}

/// How often a waited-for child is checked on: its time is known to this much.
const POLL: Duration = Duration::from_millis(2);

/// Waits for `child`, checking every few milliseconds whether `stop` says to stop it; then kills
/// it with its `group` and returns None.
pub fn wait_unless(
    child: &mut Child,
    group: &Group,
    mut stop: impl FnMut() -> bool,
) -> io::Result<Option<ExitStatus>> {
    loop {
        if let Some(status) = child.try_wait()? {
            return Ok(Some(status));
        }
        if stop() {
            let _ = group.kill(child);
            let _ = child.wait();
            return Ok(None);
        }
        std::thread::sleep(POLL);
    }
}

/// A starting point for a child's CPU time: on Unix the CPU time of every child waited for so
/// far (so a tool's own children count, once it waited for them); on Windows nothing (the
/// child's own times are asked for at the end).
pub struct CpuClock(Option<Duration>);

impl CpuClock {
    pub fn start() -> CpuClock {
        CpuClock(children_cpu())
    }

    /// The user and system CPU time of `child`, waited for since [`CpuClock::start`] (and of its
    /// children it waited for, on Unix); None where the system does not say.
    pub fn used(&self, child: &Child) -> Option<Duration> {
        #[cfg(unix)]
        {
            let _ = child;
            Some(children_cpu()?.saturating_sub(self.0?))
        }
        #[cfg(windows)]
        {
            let _ = self.0;
            child_times(child)
        }
    }
}

/// The CPU time every core of the machine has spent busy since it booted, every program's
/// (Linux: `/proc/stat`); None elsewhere. Its growth over a tool's run beside the tool's own
/// says whether other programs kept the cores from it.
#[cfg(target_os = "linux")]
pub fn machine_busy() -> Option<Duration> {
    let stat = std::fs::read_to_string("/proc/stat").ok()?;
    busy_of_stat(&stat, rustix::param::clock_ticks_per_second())
}

#[cfg(not(target_os = "linux"))]
pub fn machine_busy() -> Option<Duration> {
    None
}

/// The busy time in `/proc/stat`'s first line (`cpu user nice system idle iowait irq softirq
/// steal ...`, in ticks of `hz`): everything but idle and iowait.
#[cfg(any(target_os = "linux", test))]
fn busy_of_stat(stat: &str, hz: u64) -> Option<Duration> {
    let line = stat.lines().next()?.strip_prefix("cpu ")?;
    let ticks: Vec<u64> = line
        .split_whitespace()
        .map(|f| f.parse().ok())
        .collect::<Option<_>>()?;
    if ticks.len() < 8 || hz == 0 {
        return None;
    }
    let busy: u64 = ticks[..3].iter().chain(&ticks[5..8]).sum();
    Some(Duration::from_secs_f64(busy as f64 / hz as f64))
}

#[cfg(unix)]
fn children_cpu() -> Option<Duration> {
    let mut usage = std::mem::MaybeUninit::<libc::rusage>::zeroed();
    // SAFETY: getrusage fills the rusage we pass; it is read only when the call succeeded.
    let rc = unsafe { libc::getrusage(libc::RUSAGE_CHILDREN, usage.as_mut_ptr()) };
    if rc != 0 {
        return None;
    }
    // SAFETY: initialised by the successful call above (and zeroed before it).
    let usage = unsafe { usage.assume_init() };
    let time = |t: libc::timeval| {
        Duration::from_secs(t.tv_sec as u64) + Duration::from_micros(t.tv_usec as u64)
    };
    Some(time(usage.ru_utime) + time(usage.ru_stime))
}

#[cfg(windows)]
fn children_cpu() -> Option<Duration> {
    None
}

/// The user and kernel times of a process that has exited, from its handle.
#[cfg(windows)]
fn child_times(child: &Child) -> Option<Duration> {
    use std::os::windows::io::AsRawHandle;
    // SAFETY: the child's process handle, open while `child` lives.
    unsafe { super::windows::cpu_time_of(child.as_raw_handle()) }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// user, nice, system, irq, softirq and steal are busy; idle and iowait are not.
    #[test]
    fn the_busy_time_leaves_idle_and_iowait_out() {
        let stat = "cpu  100 20 30 5000 400 6 7 8 0 0\ncpu0 50 10 15 2500 200 3 3 4 0 0\n";
        assert_eq!(busy_of_stat(stat, 100), Some(Duration::from_secs_f64(1.71)));
        assert_eq!(busy_of_stat("cpu  1 2 3\n", 100), None);
        assert_eq!(busy_of_stat("intr 1 2 3 4 5 6 7 8\n", 100), None);
    }
}
