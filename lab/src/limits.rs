//! Limits on the counts and sizes given on the command line: a count that no run could reach,
//! or that would wrap an integer on its way, is refused with an error naming the flag, and a
//! thread count far beyond the machine is brought down to one it can use, with a warning. The
//! machine's own limits (cores, memory, open files) are read here too.

/// The most games played by players (arena, skilled rows, strength sweeps): each keeps its
/// result in memory, and ten million games of the fastest player take days.
pub const MAX_PLAYED_GAMES: u64 = 10_000_000;

/// The most uniformly random games (`tafl random`, random rows of `tafl balance`): only tallies
/// are kept, and a trillion games take months.
pub const MAX_RANDOM_GAMES: u64 = 1_000_000_000_000;

/// The deepest perft: no search that deep ends (Brandubh's count passes 10^19, beyond a u64,
/// near depth 12), and each ply is a frame of the recursion.
pub const MAX_PERFT_DEPTH: u32 = 30;

/// Worker threads are limited to this many per core.
pub const THREADS_PER_CORE: usize = 4;

/// Refuses `value` above `max`, naming the flag.
pub fn at_most(flag: &str, value: u64, max: u64) -> Result<u64, String> {
    if value > max {
        Err(format!("{flag}: {value} is too many; at most {max}"))
    } else {
        Ok(value)
    }
}

/// The cores this process may use.
pub fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// The thread count to use for `--threads`: refused when 0; above [`THREADS_PER_CORE`] per
/// core it is brought down to that, with a warning on stderr (more threads only wait on each
/// other, and tens of thousands take minutes just to start).
pub fn threads(requested: Option<usize>) -> Result<Option<usize>, String> {
    match requested {
        Some(0) => Err("--threads must be at least 1".into()),
        Some(t) => {
            let (t, warning) = clamp_threads(t, cores());
            if let Some(w) = warning {
                eprintln!("warning: {w}");
            }
            Ok(Some(t))
        }
        None => Ok(None),
    }
}

/// `requested` threads on `cores` cores: the count used and the warning to give.
pub fn clamp_threads(requested: usize, cores: usize) -> (usize, Option<String>) {
    let max = cores.max(1) * THREADS_PER_CORE;
    if requested > max {
        (
            max,
            Some(format!(
                "--threads {requested} is more than {THREADS_PER_CORE} per core on this machine's {cores} core(s); using {max}"
            )),
        )
    } else {
        (requested, None)
    }
}

/// The memory this process may use, in bytes: the machine's (`MemTotal` in /proc/meminfo), or
/// its control group's limit when that is lower; `None` where neither can be read (not Linux).
pub fn memory() -> Option<u64> {
    let total = std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|t| mem_total(&t));
    // cgroup v2, then v1; "max" (or v1's huge number) is no limit.
    let group = [
        "/sys/fs/cgroup/memory.max",
        "/sys/fs/cgroup/memory/memory.limit_in_bytes",
    ]
    .iter()
    .find_map(|p| std::fs::read_to_string(p).ok()?.trim().parse::<u64>().ok());
    match (total, group) {
        (Some(t), Some(g)) => Some(t.min(g)),
        (t, g) => t.or(g),
    }
}

/// `MemTotal` of a /proc/meminfo text, in bytes.
fn mem_total(meminfo: &str) -> Option<u64> {
    let line = meminfo.lines().find(|l| l.starts_with("MemTotal:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    kib.checked_mul(1024)
}

/// The files this process may have open at once (the soft `Max open files` limit, `ulimit -n`,
/// in /proc/self/limits); `None` where it cannot be read or is unlimited.
pub fn open_files() -> Option<u64> {
    std::fs::read_to_string("/proc/self/limits")
        .ok()
        .and_then(|t| max_open_files(&t))
}

/// The soft `Max open files` limit of a /proc/self/limits text.
fn max_open_files(limits: &str) -> Option<u64> {
    let line = limits.lines().find(|l| l.starts_with("Max open files"))?;
    line["Max open files".len()..]
        .split_whitespace()
        .next()?
        .parse()
        .ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_machines_memory_and_file_limit_are_read_from_linux_texts() {
        assert_eq!(
            mem_total("MemTotal:       16316412 kB\nMemFree: 1 kB\n"),
            Some(16_316_412 * 1024)
        );
        assert_eq!(mem_total("nothing"), None);
        let limits = "Limit                     Soft Limit           Hard Limit           Units\nMax open files            1024                 524288               files\n";
        assert_eq!(max_open_files(limits), Some(1024));
        assert_eq!(
            max_open_files("Max open files            unlimited            unlimited            files"),
            None
        );
        if cfg!(target_os = "linux") {
            assert!(memory().is_some_and(|m| m > 1 << 20));
            assert!(open_files().is_some_and(|n| n > 0));
        }
    }

    #[test]
    fn counts_above_the_limit_name_the_flag() {
        assert_eq!(at_most("--games", 10, 10), Ok(10));
        let e = at_most("--games", u64::MAX, MAX_PLAYED_GAMES).unwrap_err();
        assert!(e.starts_with("--games: 18446744073709551615 is too many"), "{e}");
    }

    #[test]
    fn absurd_thread_counts_are_brought_down_with_a_warning() {
        assert_eq!(clamp_threads(8, 2), (8, None));
        let (t, w) = clamp_threads(100_000, 2);
        assert_eq!(t, 8);
        assert!(w.unwrap().contains("--threads 100000"));
        assert_eq!(clamp_threads(3, 0).0, 3);
    }
}
