//! Our bot account on hnefatafl.org's own game server (`hnefatafl-server` of hnefatafl-copenhagen
//! 6.4.1, installed under target/ by scripts/install-hnefatafl-server.sh), on loopback: one
//! bot creates games and plays them one after another; for each, a second bot joins it. Both
//! play hnefatafl.org's house rules (`copenhagen-hnefatafl-org`): every move of each side is
//! taken by their server, and at each game's end the server's verdict and our rules' agree.
//!
//! Skipped, saying why, when the server cannot be built (no crates.io) or its port (49152,
//! fixed in their server) is taken.

mod cmd;

use std::io::{BufRead, BufReader};
use std::net::TcpStream;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

struct Killed(Child);

impl Drop for Killed {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// The server binary, or why there is none.
fn server_binary(root: &Path) -> Result<String, String> {
    let out = Command::new("bash")
        .arg(root.join("scripts/install-hnefatafl-server.sh"))
        .output()
        .map_err(|e| format!("cannot run scripts/install-hnefatafl-server.sh: {e}"))?;
    let path = String::from_utf8_lossy(&out.stdout)
        .lines()
        .last()
        .unwrap_or("")
        .trim()
        .to_string();
    if !out.status.success() || path.is_empty() {
        return Err(format!(
            "scripts/install-hnefatafl-server.sh failed:\n{}",
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    Ok(path)
}

/// The stderr lines of a bot, as they come.
fn lines_of(child: &mut Child) -> mpsc::Receiver<String> {
    let (tx, rx) = mpsc::channel();
    let err = child.stderr.take().expect("stderr");
    std::thread::spawn(move || {
        for line in BufReader::new(err).lines().map_while(Result::ok) {
            eprintln!("  {line}");
            if tx.send(line).is_err() {
                return;
            }
        }
    });
    rx
}

fn bot(args: &[&str]) -> Child {
    cmd::tafl_with(args)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start tafl engine --server")
}

#[test]
fn our_bot_plays_games_on_hnefatafl_orgs_server_one_after_another() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let server = match server_binary(root) {
        Ok(s) => s,
        Err(why) => {
            eprintln!("SKIPPED: hnefatafl-server could not be installed: {why}");
            return;
        }
    };
    if TcpStream::connect("127.0.0.1:49152").is_ok() {
        eprintln!("SKIPPED: port 49152 (hnefatafl-server's, fixed) is taken by another program");
        return;
    }
    let dir = root.join("target/tmp/hnefatafl-server-test");
    std::fs::create_dir_all(&dir).unwrap();
    let _server = Killed(
        Command::new(&server)
            .args(["--skip-the-data-file", "--skip-advertising-updates"])
            .current_dir(&dir)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("start hnefatafl-server"),
    );
    let started = Instant::now();
    while TcpStream::connect("127.0.0.1:49152").is_err() {
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "hnefatafl-server did not listen"
        );
        std::thread::sleep(Duration::from_millis(100));
    }

    // Random players: their games run to the 141-ply draw, hundreds of moves through the
    // server's legality checks (the defenders' moves among them, which may not repeat).
    let games = 2;
    let mut creator = Killed(bot(&[
        "engine",
        "--protocol",
        "htp",
        "--server",
        "127.0.0.1",
        "--user",
        "tafl-a",
        "--password",
        "pw",
        "--create-account",
        "--games",
        "2",
        "--time",
        "untimed",
        "--player",
        "random",
        "--seed",
        "3",
    ]));
    let said = lines_of(&mut creator.0);
    let mut log: Vec<String> = Vec::new();
    let deadline = Instant::now() + Duration::from_secs(300);
    let wait_for = |log: &mut Vec<String>, what: &dyn Fn(&str) -> bool| -> String {
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let line = said
                .recv_timeout(left)
                .unwrap_or_else(|_| panic!("the creating bot stopped or hung; it said:\n{}", log.join("\n")));
            log.push(line.clone());
            if what(&line) {
                return line;
            }
        }
    };
    for g in 0..games {
        let created = wait_for(&mut log, &|l| l.contains("created game"));
        let id = created
            .split("created game ")
            .nth(1)
            .and_then(|r| r.split_whitespace().next())
            .unwrap()
            .to_string();
        let seed = format!("{}", 10 + g);
        let joiner = cmd::tafl_with(&[
            "engine",
            "--protocol",
            "htp",
            "--server",
            "127.0.0.1:49152",
            "--user",
            "tafl-b",
            "--password",
            "pw",
            "--create-account",
            "--join",
            &id,
            "--player",
            "random",
            "--seed",
            &seed,
        ])
        .output()
        .expect("run the joining bot");
        let joined = String::from_utf8_lossy(&joiner.stderr).to_string();
        assert!(joiner.status.success(), "the joining bot failed:\n{joined}");
        assert!(joined.contains(&format!("game {id} starts")), "{joined}");
        assert!(joined.contains("rules agree"), "{joined}");
        wait_for(&mut log, &|l| l.contains(&format!("game {id}: rules")));
    }
    // After its games the creating bot stops by itself.
    let status = loop {
        if let Some(s) = creator.0.try_wait().unwrap() {
            break s;
        }
        assert!(
            Instant::now() < deadline,
            "the creating bot did not stop after its games"
        );
        std::thread::sleep(Duration::from_millis(100));
    };
    while let Ok(line) = said.recv_timeout(Duration::from_millis(200)) {
        log.push(line);
    }
    let text = log.join("\n");
    assert!(status.success(), "{text}");
    assert_eq!(text.matches("rules agree").count(), games, "{text}");
    for bad in ["rules differ", "refused", "illegal"] {
        assert!(!text.contains(bad), "`{bad}`:\n{text}");
    }
    // It played one side, then the other.
    assert!(
        text.contains("as attacker against tafl-b") && text.contains("as defender against tafl-b"),
        "{text}"
    );
}
