//! Facts about processes from the operating system: liveness, CPU time, memory, signals.
//! Linux `/proc` where it is read; elsewhere the answers degrade to "unknown".

use std::path::PathBuf;
use std::time::Duration;

/// The environment variables through which a user may hand searchbench a credential (a URL
/// can carry a password).
pub const SECRET_ENV: [&str; 9] = [
    "SEARCHBENCH_URL",
    // A mirror's URL may carry its password; Maven reads its own settings, not this.
    "SEARCHBENCH_MAVEN_REPO",
    "SEARCHBENCH_USER",
    "SEARCHBENCH_PASSWORD",
    "SEARCHBENCH_API_KEY",
    "SEARCHBENCH_BEARER",
    "SEARCHBENCH_PUBLISH",
    "SEARCHBENCH_PUBLISH_PASSWORD",
    "SEARCHBENCH_PUBLISH_API_KEY",
];

/// Keeps [`SECRET_ENV`] out of a child's environment: an engine node outlives the command
/// that started it, and any local user can read `/proc/<pid>/environ` of a process they can
/// see. Engines and Maven need none of them.
pub fn without_secrets(command: &mut std::process::Command) -> &mut std::process::Command {
    for name in SECRET_ENV {
        command.env_remove(name);
    }
    command
}

/// `$XDG_CACHE_HOME/searchbench`, else `~/.cache/searchbench`, else a temp folder of this
/// user's.
pub fn cache_root() -> PathBuf {
    if let Some(dir) = std::env::var_os("SEARCHBENCH_CACHE").filter(|d| !d.is_empty()) {
        return PathBuf::from(dir);
    }
    if let Some(dir) = std::env::var_os("XDG_CACHE_HOME").filter(|d| !d.is_empty()) {
        return PathBuf::from(dir).join("searchbench");
    }
    match std::env::var_os("HOME").filter(|d| !d.is_empty()) {
        Some(home) => PathBuf::from(home).join(".cache").join("searchbench"),
        None => temp_cache(),
    }
}

/// The cache when no home says where: under the temp folder, one a user.
pub(crate) fn temp_cache() -> PathBuf {
    // SAFETY: geteuid has no preconditions and cannot fail.
    let uid = unsafe { libc::geteuid() };
    std::env::temp_dir().join(format!("searchbench-cache-{uid}"))
}

/// Whether the process `pid` is alive. Pid 0 names no process (to `kill` it is the caller's
/// own group: a stored 0 would read as alive for ever); a process of another user, which
/// signal 0 may not reach (`EPERM`), is alive.
pub fn pid_alive(pid: u32) -> bool {
    let Ok(pid) = i32::try_from(pid) else {
        return false;
    };
    if pid == 0 {
        return false;
    }
    // SAFETY: kill with signal 0 only checks that the process exists.
    let rc = unsafe { libc::kill(pid, 0) };
    if rc != 0 {
        return std::io::Error::last_os_error().raw_os_error() == Some(libc::EPERM);
    }
    // A zombie (exited, not yet reaped) counts as gone.
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => !stat
            .rsplit(')')
            .next()
            .unwrap_or("")
            .trim_start()
            .starts_with('Z'),
        Err(_) => true,
    }
}

/// What tells the process `pid` apart from every other that had or will have its number: the
/// boot it runs in and when, after that boot, it started (`/proc/<pid>/stat`'s 22nd field).
/// `None` where `/proc` does not say.
pub fn process_mark(pid: u32) -> Option<String> {
    let boot = std::fs::read_to_string("/proc/sys/kernel/random/boot_id").ok()?;
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The fields after the command's name start at the third (its state).
    let started: u64 = stat
        .rsplit_once(')')?
        .1
        .split_whitespace()
        .nth(19)?
        .parse()
        .ok()?;
    Some(format!("{}:{started}", boot.trim()))
}

/// Whether the process that kept `pid` and, beside it, its [`process_mark`] is alive here: a
/// number alone can name another process (reused since, or a store copied from another host
/// or container, whose pid here is something else). Without a mark, or where `/proc` does not
/// say, the number alone decides.
pub fn owner_alive(pid: u32, mark: Option<&str>) -> bool {
    if !pid_alive(pid) {
        return false;
    }
    match (mark, process_mark(pid)) {
        (Some(kept), Some(here)) => kept == here,
        _ => true,
    }
}

pub fn rss_bytes(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

/// User and system CPU time of a process so far, from /proc/<pid>/stat.
fn user_sys_time(pid: u32) -> Option<(Duration, Duration)> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let after = stat.rsplit_once(')')?.1;
    let fields: Vec<&str> = after.split_whitespace().collect();
    // Fields 14 and 15 of stat (utime, stime) are at 11 and 12 after the command name.
    let utime: u64 = fields.get(11)?.parse().ok()?;
    let stime: u64 = fields.get(12)?.parse().ok()?;
    // SAFETY: sysconf has no preconditions.
    let ticks = unsafe { libc::sysconf(libc::_SC_CLK_TCK) };
    let ticks = if ticks > 0 { ticks as u64 } else { 100 };
    let time = |t: u64| Duration::from_nanos(t * 1_000_000_000 / ticks);
    Some((time(utime), time(stime)))
}

/// CPU time (user + system) a process has used so far, from /proc/<pid>/stat.
pub fn cpu_time(pid: u32) -> Option<Duration> {
    user_sys_time(pid).map(|(user, sys)| user + sys)
}

/// What `/proc` tells about a set of processes (a node's process group), summed; the counters
/// are totals since each process started. A figure the OS does not give is `None`
/// (`/proc/<pid>/io` needs the same user or root).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct ProcStats {
    pub user: Duration,
    pub sys: Duration,
    pub rss_bytes: Option<u64>,
    /// Bytes the processes caused to be read from / written to storage.
    pub read_bytes: Option<u64>,
    pub write_bytes: Option<u64>,
    /// Context switches of all their threads, voluntary + involuntary.
    pub context_switches: Option<u64>,
}

/// [`ProcStats`] of `pids` together; `None` when none of them can be read.
pub fn proc_stats(pids: &[u32]) -> Option<ProcStats> {
    let mut out = ProcStats::default();
    let mut any = false;
    let add = |total: &mut Option<u64>, v: Option<u64>| {
        if let Some(v) = v {
            *total = Some(total.unwrap_or(0) + v);
        }
    };
    for &pid in pids {
        let Some((user, sys)) = user_sys_time(pid) else {
            continue;
        };
        any = true;
        out.user += user;
        out.sys += sys;
        add(&mut out.rss_bytes, rss_bytes(pid));
        let io = std::fs::read_to_string(format!("/proc/{pid}/io")).ok();
        let field = |name: &str| {
            io.as_deref()?
                .lines()
                .find_map(|l| l.strip_prefix(name)?.trim().parse::<u64>().ok())
        };
        add(&mut out.read_bytes, field("read_bytes:"));
        add(&mut out.write_bytes, field("write_bytes:"));
        add(&mut out.context_switches, context_switches(pid));
    }
    any.then_some(out)
}

/// Context switches of every thread of `pid` (`/proc/<pid>/status` counts the main thread
/// only, so the threads' own files are read).
fn context_switches(pid: u32) -> Option<u64> {
    let tasks = std::fs::read_dir(format!("/proc/{pid}/task")).ok()?;
    let mut total = 0;
    for task in tasks.flatten() {
        let Ok(status) = std::fs::read_to_string(task.path().join("status")) else {
            continue;
        };
        total += status
            .lines()
            .filter_map(|l| {
                l.strip_prefix("voluntary_ctxt_switches:")
                    .or_else(|| l.strip_prefix("nonvoluntary_ctxt_switches:"))
            })
            .filter_map(|v| v.trim().parse::<u64>().ok())
            .sum::<u64>();
    }
    Some(total)
}

/// CPU time used so far by the calling thread (CLOCK_THREAD_CPUTIME_ID).
pub fn thread_cpu() -> Duration {
    // SAFETY: clock_gettime only writes into the struct we pass; a zeroed timespec is valid.
    let mut ts: libc::timespec = unsafe { std::mem::zeroed() };
    // SAFETY: a valid clock id and pointer; no other preconditions.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    if rc != 0 {
        return Duration::ZERO;
    }
    Duration::new(
        ts.tv_sec.max(0) as u64,
        ts.tv_nsec.clamp(0, 999_999_999) as u32,
    )
}

/// Field `n` of /proc/<pid>/stat counted after the command name (0: the state).
fn stat_field(pid: u32, n: usize) -> Option<u32> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    stat.rsplit_once(')')?
        .1
        .split_whitespace()
        .nth(n)?
        .parse()
        .ok()
}

/// The processes that `keep` keeps, from /proc (empty where there is no /proc).
fn processes_where(keep: impl Fn(u32) -> bool) -> Vec<u32> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<u32>().ok())
        .filter(|&pid| keep(pid))
        .collect()
}

/// The process group of `pid` (field 5 of its stat).
pub fn group_of(pid: u32) -> Option<u32> {
    stat_field(pid, 2)
}

/// The parent of `pid` (field 4 of its stat).
pub fn parent_of(pid: u32) -> Option<u32> {
    stat_field(pid, 1)
}

/// The processes of a process group.
///
/// A node we start leads its own group; the group also holds what it spawns (Elasticsearch
/// 8's launcher runs the server as a child JVM), so group figures are the node's figures.
pub fn group_members(pgid: u32) -> Vec<u32> {
    processes_where(|pid| group_of(pid) == Some(pgid))
}

/// The children of `pid`.
pub fn children_of(pid: u32) -> Vec<u32> {
    processes_where(|child| parent_of(child) == Some(pid))
}

/// CPU time of a process and the rest of its group (see [`group_members`]).
pub fn group_cpu_time(pid: u32) -> Option<Duration> {
    let members = group_members(pid);
    if members.is_empty() {
        return cpu_time(pid);
    }
    Some(members.into_iter().filter_map(cpu_time).sum())
}

/// CPU time of several nodes' process groups together; `None` when there are none or one
/// cannot be read (a partial sum would understate the cluster).
pub fn groups_cpu_time(pids: &[u32]) -> Option<Duration> {
    if pids.is_empty() {
        return None;
    }
    pids.iter().map(|&pid| group_cpu_time(pid)).sum()
}

/// Resident memory of a process and the rest of its group.
pub fn group_rss_bytes(pid: u32) -> Option<u64> {
    let members = group_members(pid);
    if members.is_empty() {
        return rss_bytes(pid);
    }
    Some(members.into_iter().filter_map(rss_bytes).sum())
}

/// Whether any process of group `pgid` is still running (zombies do not count).
pub fn group_alive(pgid: u32) -> bool {
    let members = group_members(pgid);
    if members.is_empty() && !std::path::Path::new("/proc/self").exists() {
        return pid_alive(pgid);
    }
    members.into_iter().any(pid_alive)
}

/// SIGTERM to a whole process group, SIGKILL once `grace` has passed. Returns true if it
/// had to kill.
pub fn terminate_group(pgid: u32, grace: Duration) -> bool {
    let Ok(group) = i32::try_from(pgid) else {
        return false;
    };
    let send = |sig| {
        // SAFETY: a negative pid signals the group; no memory-safety preconditions.
        unsafe {
            libc::kill(-group, sig);
        }
    };
    send(libc::SIGTERM);
    let deadline = std::time::Instant::now() + grace;
    while std::time::Instant::now() < deadline {
        if !group_alive(pgid) {
            return false;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    send(libc::SIGKILL);
    let deadline = std::time::Instant::now() + Duration::from_secs(5);
    while group_alive(pgid) && std::time::Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(50));
    }
    true
}

/// The effective user is root (engines' own scripts refuse to run as root).
pub fn is_root() -> bool {
    // SAFETY: geteuid has no preconditions and cannot fail.
    unsafe { libc::geteuid() == 0 }
}

/// User + system CPU time used so far by this process, all threads (getrusage RUSAGE_SELF).
pub fn self_cpu() -> Duration {
    // SAFETY: getrusage only writes into the struct we pass; a zeroed rusage is valid.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: RUSAGE_SELF with a valid pointer has no other preconditions.
    let rc = unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut usage) };
    if rc != 0 {
        return Duration::ZERO;
    }
    let tv = |t: libc::timeval| {
        Duration::from_secs(t.tv_sec.max(0) as u64) + Duration::from_micros(t.tv_usec.max(0) as u64)
    };
    tv(usage.ru_utime) + tv(usage.ru_stime)
}

/// Bytes free to this user in the filesystem of `dir`.
pub fn free_bytes(dir: &std::path::Path) -> Option<u64> {
    use std::os::unix::ffi::OsStrExt;
    let path = std::ffi::CString::new(dir.as_os_str().as_bytes()).ok()?;
    let mut s: libc::statvfs = unsafe { std::mem::zeroed() };
    // SAFETY: `path` is a NUL-terminated string and `s` a statvfs to fill.
    let rc = unsafe { libc::statvfs(path.as_ptr(), &mut s) };
    (rc == 0).then(|| s.f_bavail.saturating_mul(s.f_frsize))
}

/// The size of a memory page.
pub fn page_size() -> usize {
    // SAFETY: sysconf has no preconditions.
    let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    usize::try_from(page)
        .ok()
        .filter(|p| *p > 0)
        .unwrap_or(4096)
}

/// The read-ahead of the block device that holds `path`, in KB: how much the kernel reads
/// past each miss, which decides how much a cold read brings back. Asked of
/// `/sys/dev/block/MAJOR:MINOR` (a partition's is its disk's); `None` where the file system
/// has no block device (tmpfs, overlay) or this is not Linux.
pub fn read_ahead_kb(path: &std::path::Path) -> Option<u64> {
    use std::os::unix::fs::MetadataExt;
    let dev = std::fs::metadata(path).ok()?.dev();
    let device = std::path::PathBuf::from(format!(
        "/sys/dev/block/{}:{}",
        libc::major(dev),
        libc::minor(dev)
    ));
    // The kernel follows the device's link before `..`: a partition's parent is its disk.
    [device.join("queue"), device.join("../queue")]
        .iter()
        .find_map(|queue| std::fs::read_to_string(queue.join("read_ahead_kb")).ok())
        .and_then(|kb| kb.trim().parse().ok())
}

/// Where the kernel is told to drop its clean caches.
pub const DROP_CACHES: &str = "/proc/sys/vm/drop_caches";

/// Why this process cannot drop the OS page cache, or `None` when it can: only root may, on
/// Linux, where `/proc/sys/vm` is writable (a container may mount it read-only).
pub fn cannot_drop_page_cache() -> Option<String> {
    if !cfg!(target_os = "linux") {
        return Some(format!(
            "dropping the OS page cache is done through Linux's {DROP_CACHES}, and this is \
             not Linux"
        ));
    }
    if !is_root() {
        return Some(format!(
            "dropping the OS page cache needs root (it writes {DROP_CACHES}), and this runs \
             as another user"
        ));
    }
    match std::fs::OpenOptions::new().write(true).open(DROP_CACHES) {
        Ok(_) => None,
        Err(e) => Some(format!("{DROP_CACHES} cannot be written here: {e}")),
    }
}

/// Writes every dirty page out (`sync`), then drops the clean page cache, dentries and
/// inodes. Pages a process still maps stay: close the files first.
pub fn drop_page_cache() -> std::io::Result<()> {
    // SAFETY: sync has no preconditions and cannot fail.
    unsafe { libc::sync() };
    std::fs::write(DROP_CACHES, "3")
}

/// Bytes of the regular files under `dir` (recursively) that are in memory (`mincore`), and
/// their total size. Files that vanish meanwhile (a merge) are skipped.
pub fn resident_bytes(dir: &std::path::Path) -> std::io::Result<(u64, u64)> {
    let mut resident = 0u64;
    let mut total = 0u64;
    let mut pending = vec![dir.to_path_buf()];
    while let Some(at) = pending.pop() {
        for entry in std::fs::read_dir(&at)? {
            let Ok(entry) = entry else { continue };
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            if kind.is_dir() {
                pending.push(entry.path());
            } else if kind.is_file() {
                if let Ok((r, t)) = resident_in_file(&entry.path()) {
                    resident += r;
                    total += t;
                }
            }
        }
    }
    Ok((resident, total))
}

/// Resident and total bytes of one file: mapped (which reads nothing) and asked of
/// `mincore`, page by page.
fn resident_in_file(path: &std::path::Path) -> std::io::Result<(u64, u64)> {
    use std::os::fd::AsRawFd;
    let file = std::fs::File::open(path)?;
    let len = file.metadata()?.len();
    if len == 0 {
        return Ok((0, 0));
    }
    let size = usize::try_from(len).map_err(std::io::Error::other)?;
    let page = page_size();
    // SAFETY: a read-only shared mapping of a file we hold open, of its length; never read
    // through, only given to mincore, and unmapped below.
    let at = unsafe {
        libc::mmap(
            std::ptr::null_mut(),
            size,
            libc::PROT_READ,
            libc::MAP_SHARED,
            file.as_raw_fd(),
            0,
        )
    };
    if at == libc::MAP_FAILED {
        return Err(std::io::Error::last_os_error());
    }
    let mut pages = vec![0u8; size.div_ceil(page)];
    // SAFETY: `at` maps `size` bytes and `pages` has one byte per page of it.
    let rc = unsafe { libc::mincore(at, size, pages.as_mut_ptr()) };
    let err = std::io::Error::last_os_error();
    // SAFETY: `at` and `size` are the mapping made above.
    unsafe { libc::munmap(at, size) };
    if rc != 0 {
        return Err(err);
    }
    let in_memory = pages.iter().filter(|p| **p & 1 == 1).count() as u64;
    Ok(((in_memory * page as u64).min(len), len))
}

/// An exclusive lock on making the folder `dir` (`flock` on `dir.lock` beside it, made when
/// missing), held until dropped; the kernel lets it go if the process dies. Blocks until any
/// other holder is done.
pub struct FolderLock {
    _held: std::fs::File,
}

impl FolderLock {
    /// The lock of `dir`; on failure, the lock file's path and why.
    pub fn take(dir: &std::path::Path) -> Result<FolderLock, (std::path::PathBuf, std::io::Error)> {
        use std::os::fd::AsRawFd;
        // `opensearch-2.19.1-dist.lock`: the whole name (with_extension would cut at its dots).
        let mut name = dir.file_name().unwrap_or_default().to_os_string();
        name.push(".lock");
        let path = dir.with_file_name(name);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(|e| (parent.to_path_buf(), e))?;
        }
        let file = std::fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&path)
            .map_err(|e| (path.clone(), e))?;
        // SAFETY: flock on a descriptor we own; it blocks until the other holder is done.
        if unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX) } != 0 {
            return Err((path, std::io::Error::last_os_error()));
        }
        Ok(FolderLock { _held: file })
    }
}

#[cfg(test)]
mod tests {
    /// This process is alive; pid 0 (no process: to `kill`, the caller's own group) and a
    /// pid past any the kernel gives are not, so a row stored with one reads as ended.
    #[test]
    fn a_pid_naming_no_process_is_not_alive() {
        assert!(super::pid_alive(std::process::id()));
        assert!(!super::pid_alive(0));
        assert!(!super::pid_alive(u32::MAX));
    }

    /// A pid kept with its process's mark names that process only: another process under the
    /// same number (reused, or a pid from another host's or container's store) is not it.
    #[test]
    fn a_pid_kept_with_its_mark_names_its_own_process_only() {
        let me = std::process::id();
        let mark = super::process_mark(me).expect("/proc says when this process started");
        assert_eq!(super::process_mark(me).as_deref(), Some(mark.as_str()));
        assert!(super::owner_alive(me, Some(&mark)));
        assert!(super::owner_alive(me, None));
        let (boot, started) = mark.rsplit_once(':').expect("boot:started");
        let later: u64 = started.parse().expect("ticks");
        assert!(!super::owner_alive(
            me,
            Some(&format!("{boot}:{}", later + 1))
        ));
        assert!(!super::owner_alive(
            me,
            Some(&format!("another-boot:{started}"))
        ));
        // Pid 1 is alive here, and not the process that kept this mark.
        assert!(!super::owner_alive(1, Some(&mark)));
        assert!(!super::owner_alive(0, None));
    }

    /// The read-ahead found through the file's device number is the one `/sys/block` lists
    /// for the disk whose `dev` (or whose partition's) is that number.
    #[test]
    fn the_read_ahead_is_that_of_the_disk_under_the_file() {
        use std::os::unix::fs::MetadataExt;
        let file = tempfile::NamedTempFile::new().expect("a file");
        let dev = std::fs::metadata(file.path()).expect("stat").dev();
        let wanted = format!("{}:{}", libc::major(dev), libc::minor(dev));
        let mut listed = None;
        for disk in std::fs::read_dir("/sys/block")
            .into_iter()
            .flatten()
            .flatten()
        {
            let disk = disk.path();
            let mut devices = vec![disk.clone()];
            devices.extend(
                std::fs::read_dir(&disk)
                    .into_iter()
                    .flatten()
                    .flatten()
                    .map(|e| e.path())
                    .filter(|p| p.join("partition").exists()),
            );
            for d in devices {
                let dev = std::fs::read_to_string(d.join("dev")).unwrap_or_default();
                if dev.trim() == wanted {
                    let kb = std::fs::read_to_string(disk.join("queue/read_ahead_kb"));
                    listed = kb.ok().and_then(|kb| kb.trim().parse::<u64>().ok());
                }
            }
        }
        // A temporary folder on tmpfs or overlay has no disk: neither way finds one.
        assert_eq!(super::read_ahead_kb(file.path()), listed, "device {wanted}");
    }

    #[test]
    fn a_file_just_written_is_in_memory_and_its_size_is_counted() {
        let dir = tempfile::tempdir().expect("tempdir");
        std::fs::create_dir(dir.path().join("sub")).expect("sub");
        std::fs::write(dir.path().join("sub/a"), vec![7u8; 100_000]).expect("write");
        std::fs::write(dir.path().join("empty"), b"").expect("write");
        let (resident, total) = super::resident_bytes(dir.path()).expect("resident");
        assert_eq!(total, 100_000);
        // Written through the page cache a moment ago: resident unless memory is short.
        assert!(resident > 0 && resident <= total, "{resident}");
        assert!(super::resident_bytes(&dir.path().join("none")).is_err());
    }

    #[test]
    fn our_group_holds_us() {
        // SAFETY: getpgrp has no preconditions.
        let pgid = unsafe { libc::getpgrp() } as u32;
        assert!(super::group_members(pgid).contains(&std::process::id()));
        assert!(super::group_alive(pgid));
        assert!(super::group_cpu_time(pgid).is_some());
    }

    #[test]
    fn proc_stats_of_ourselves() {
        let me = std::process::id();
        let stats = super::proc_stats(&[me]).expect("our own /proc");
        assert!(stats.rss_bytes.unwrap_or(0) > 0);
        assert!(stats.context_switches.is_some());
        assert!(super::proc_stats(&[]).is_none());
        let before = super::thread_cpu();
        let start = std::time::Instant::now();
        let mut x = 1u64;
        while start.elapsed() < std::time::Duration::from_millis(30) {
            x = x.wrapping_mul(31).wrapping_add(7);
        }
        std::hint::black_box(x);
        assert!(super::thread_cpu() > before);
    }

    #[test]
    fn cpu_time_grows_with_work() {
        let before = super::self_cpu();
        let mut x = 0u64;
        let start = std::time::Instant::now();
        while start.elapsed() < std::time::Duration::from_millis(50) {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1);
        }
        std::hint::black_box(x);
        assert!(super::self_cpu() > before);
    }
}
