//! Running the `tafl` binary from end-to-end tests: the one process helper every test file
//! shares (each uses some of these, hence the allowance).
#![allow(dead_code)]

use std::io::Write;
use std::process::{Command, Output, Stdio};

/// The `tafl` binary as a command, with `TAFL_LEVELS` cleared so that a levels file in the
/// caller's environment cannot change a test (tests that want one set it).
pub fn tafl_command() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_tafl"));
    c.env_remove("TAFL_LEVELS");
    c
}

/// The `tafl` binary with `args`, not yet started.
pub fn tafl_with(args: &[&str]) -> Command {
    let mut c = tafl_command();
    c.args(args);
    c
}

/// Runs `tafl` with `args` to its end.
pub fn tafl_output(args: &[&str]) -> Output {
    tafl_with(args).output().expect("run tafl")
}

/// What a finished run said: (success, stdout, stderr).
pub fn text(out: &Output) -> (bool, String, String) {
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Runs `tafl` with `args`: (success, stdout, stderr).
pub fn tafl_text(args: &[&str]) -> (bool, String, String) {
    text(&tafl_output(args))
}

/// Runs `tafl` with `args` and the environment variables `env` set: (success, stdout, stderr).
pub fn tafl_text_env(args: &[&str], env: &[(&str, &std::ffi::OsStr)]) -> (bool, String, String) {
    let mut c = tafl_with(args);
    c.envs(env.iter().copied());
    text(&c.output().expect("run tafl"))
}

/// Runs `tafl` with `args`, feeding `input` on stdin: (success, stdout, stderr).
pub fn tafl_stdin(args: &[&str], input: &str) -> (bool, String, String) {
    let mut child = tafl_with(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run tafl");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(input.as_bytes())
        .expect("write stdin");
    text(&child.wait_with_output().expect("wait for tafl"))
}
