//! The machine's peak fp32 throughput, which the benchmarks report their GFLOP/s against.
//!
//! Peak = threads x FLOP per cycle per core x clock. FLOP per cycle assumes two FMA units per
//! core (Zen 2/3/4, Skylake-SP and later Xeons): 2 units x lanes x 2 FLOP, with 16 fp32 lanes
//! under AVX-512 and 8 under AVX2. The clock is `cpu MHz` of /proc/cpuinfo (the nominal clock
//! a virtual machine reports; turbo can exceed it, so a fraction near or above 1 is possible).

/// Peak fp32 GFLOP/s of `threads` cores, and how it was reckoned (for the report's header).
pub fn peak_gflops(threads: usize) -> (f64, String) {
    let info = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    let flags = info.lines().find(|l| l.starts_with("flags")).unwrap_or_default();
    let has = |f: &str| flags.split_whitespace().any(|x| x == f);
    let (isa, lanes) = if has("avx512f") {
        ("AVX-512", 16.0)
    } else if has("avx2") && has("fma") {
        ("AVX2+FMA", 8.0)
    } else {
        ("SSE", 4.0)
    };
    let mhz = info
        .lines()
        .find(|l| l.starts_with("cpu MHz"))
        .and_then(|l| l.split(':').nth(1))
        .and_then(|v| v.trim().parse::<f64>().ok())
        .unwrap_or(2000.0);
    let per_cycle = 2.0 * lanes * 2.0;
    let peak = threads as f64 * per_cycle * mhz / 1000.0;
    (
        peak,
        format!(
            "peak {peak:.0} GFLOP/s on {threads} thread(s): {isa}, 2 FMA units x {lanes:.0} fp32 lanes x 2 = {per_cycle:.0} FLOP/cycle/core at {mhz:.0} MHz"
        ),
    )
}
