//! What the benchmarks (`cargo bench -p tafl-nn --bench nn`, `tafl bench --network`) measure
//! with: the forward-pass rate of an engine, and the machine's peak fp32 throughput, which they
//! report their GFLOP/s against.
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

/// Positions per second of `model`'s forward pass on `engine` (`Burn`, `OnnxRuntime` or `Int8`) at
/// batch `batch`, run for about `seconds` after one warm-up pass. `planes` holds at least one
/// encoded position, cycled to fill the batch. burn runs in the calling thread's rayon pool
/// (install one of the wanted size); ONNX Runtime uses `threads` threads of its own.
pub fn forward_rate(
    model: &crate::TaflNet,
    engine: crate::Inference,
    planes: &[f32],
    batch: usize,
    threads: usize,
    seconds: f64,
) -> Result<f64, crate::NnError> {
    use burn::prelude::*;
    let [_, c, _, _] = model.stem.weight.dims();
    let n = crate::onnx::board_size(model)?;
    let per = c * n * n;
    if planes.len() < per || batch == 0 {
        return Err(crate::NnError::Config("forward_rate: no position to run".into()));
    }
    let flat: Vec<f32> = planes[..planes.len() / per * per]
        .iter()
        .copied()
        .cycle()
        .take(batch * per)
        .collect();
    let mut run: Box<dyn FnMut() -> Result<(), crate::NnError>> = match engine {
        crate::Inference::OnnxRuntime => {
            let mut net = crate::OnnxNet::new(model, threads)?;
            Box::new(move || net.forward(&flat, batch).map(|_| ()))
        }
        // Calibrated on the positions given: their ranges, whatever they are, cost the same.
        crate::Inference::Int8 => {
            let mut net = crate::OnnxNet::new_int8(model, &planes[..planes.len() / per * per], threads)?;
            Box::new(move || net.forward(&flat, batch).map(|_| ()))
        }
        _ => {
            let device = model.devices().into_iter().next().unwrap_or_default();
            let x = Tensor::<4>::from_data(TensorData::new(flat, [batch, c, n, n]), &device);
            Box::new(move || {
                let out = model.forward(x.clone());
                let _ = out.policy.into_data();
                let _ = out.wdl.into_data();
                Ok(())
            })
        }
    };
    run()?;
    let start = std::time::Instant::now();
    let mut runs = 0u32;
    while runs < 2 || start.elapsed().as_secs_f64() < seconds {
        run()?;
        runs += 1;
    }
    Ok(batch as f64 * runs as f64 / start.elapsed().as_secs_f64())
}
