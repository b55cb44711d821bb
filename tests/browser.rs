//! The game page in a real browser: headless Chromium (Debian's) driven by playwright-core
//! (tests/browser/play.mjs) plays a game against a `tafl serve` started here on a free
//! loopback port: moves by clicking, the AI's answers, a hint, undo, the game to its end; a
//! busy server (503, retried after Retry-After), Undo and New game while the AI waits, a game
//! from a link ending in the king's capture, and bad URL parameters.
//! Screenshots are kept in target/browser/.
//!
//! Needs chromium, node and npm, and `npm ci` in tests/browser: scripts/install-browser-test.sh
//! installs them (as root on Debian) or says what to install; .ci/run calls it first.

mod server;

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

#[test]
fn a_game_is_played_by_clicking_in_headless_chromium() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let install = Command::new("bash")
        .arg(root.join("scripts/install-browser-test.sh"))
        .output()
        .expect("run scripts/install-browser-test.sh");
    let chromium = String::from_utf8_lossy(&install.stdout)
        .lines()
        .last()
        .unwrap_or("")
        .trim()
        .to_string();
    assert!(
        install.status.success() && !chromium.is_empty(),
        "the browser test needs Chromium, Node.js with npm and playwright-core: run \
         scripts/install-browser-test.sh as root, or install them yourself (Debian: apt-get \
         install chromium nodejs npm; then `npm ci` in tests/browser). The script said:\n{}",
        String::from_utf8_lossy(&install.stderr)
    );

    // One search thread and no queue: the page meets a busy server (503) when the test
    // holds the thread.
    let s = server::Server::start(&["--searches", "1", "--queue", "0"]);
    let shots = root.join("target/browser");
    let started = Instant::now();
    let mut child = Command::new("node")
        .arg(root.join("tests/browser/play.mjs"))
        .arg(s.url())
        .arg(&shots)
        .env("CHROMIUM", &chromium)
        .spawn()
        .expect("run node tests/browser/play.mjs");
    // A hung browser must not hang the suite.
    let limit = Duration::from_secs(600);
    let status = loop {
        if let Some(st) = child.try_wait().expect("wait for node") {
            break st;
        }
        if started.elapsed() > limit {
            let _ = child.kill();
            panic!(
                "the browser test ran past {limit:?}; screenshots in {}",
                shots.display()
            );
        }
        std::thread::sleep(Duration::from_millis(200));
    };
    assert!(
        status.success(),
        "the browser test failed (its output is above; screenshots in {})",
        shots.display()
    );
    for shot in ["midgame.png", "game-over.png", "king-captured.png", "phone.png"] {
        assert!(shots.join(shot).is_file(), "no screenshot {shot}");
    }
    eprintln!(
        "browser test: {:.1} s, screenshots in {}",
        started.elapsed().as_secs_f64(),
        shots.display()
    );
}
