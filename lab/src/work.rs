//! What long work shares: the worker pool it runs on, the progress bar it shows and the atomic
//! write of what it produces.

use indicatif::{ProgressBar, ProgressStyle};

/// Builds a rayon pool of `threads` workers (all cores when `None`).
pub fn pool(threads: Option<usize>) -> Result<rayon::ThreadPool, String> {
    // 0 is refused; far more than the cores is brought down, with a warning.
    let threads = crate::limits::threads(threads)?;
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads.unwrap_or(0))
        .build()
        .map_err(|e| format!("cannot start worker threads: {e}"))
}

/// A progress bar that only draws on a terminal (indicatif hides itself otherwise).
pub fn progress_bar(len: u64, label: &str) -> ProgressBar {
    let bar = ProgressBar::new(len);
    if let Ok(style) =
        ProgressStyle::with_template("{msg} [{bar:40}] {pos}/{len} games, {per_sec}, eta {eta}")
    {
        bar.set_style(style.progress_chars("=> "));
    }
    bar.set_message(label.to_string());
    bar
}

/// The temporary file [`write_atomic`] writes `path` through.
fn temporary(path: &std::path::Path) -> std::path::PathBuf {
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("output");
    path.with_file_name(format!(".{name}.tmp"))
}

/// Refuses, before long work starts, an output file that [`write_atomic`] could not write at
/// its end: a folder, a file in a folder that does not exist, or one in a folder that cannot
/// be written (tried by making and removing the temporary file the write goes through).
/// `flag` names the option in the error.
pub fn check_writable(flag: &str, path: &std::path::Path) -> Result<(), String> {
    let shown = path.display();
    if path.is_dir() || path.file_name().is_none() {
        return Err(format!("{flag} `{shown}` is a folder; give the file to write"));
    }
    let parent = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => std::path::Path::new("."),
    };
    if !parent.is_dir() {
        return Err(format!(
            "{flag} `{shown}`: the folder `{}` does not exist",
            parent.display()
        ));
    }
    let tmp = temporary(path);
    std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .open(&tmp)
        .map_err(|e| format!("{flag} `{shown}`: cannot write in `{}`: {e}", parent.display()))?;
    let _ = std::fs::remove_file(&tmp);
    Ok(())
}

/// Writes `bytes` to `path` through a temporary file in the same folder and a rename, so that
/// an interrupted write never leaves half a file.
pub fn write_atomic(path: &std::path::Path, bytes: &[u8]) -> Result<(), String> {
    let tmp = temporary(path);
    std::fs::write(&tmp, bytes)
        .and_then(|_| std::fs::rename(&tmp, path))
        .map_err(|e| {
            // A full disk may have left part of the temporary file: it is nobody's output.
            let _ = std::fs::remove_file(&tmp);
            format!("cannot write `{}`: {e}", path.display())
        })
}
