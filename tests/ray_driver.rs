//! The Ray driver (ray/driver.py) on a local two-node cluster on loopback: two iterations of the
//! tiny config with two self-play tasks in flight, one node killed with all its processes in
//! the middle of the first iteration's self-play; the run must complete with every game's shard
//! present and every shard's checksum intact.
//!
//! Needs Ray (scripts/install-ray.sh, which .ci/run calls first); skipped with a message when
//! it cannot be installed.

use std::io::{BufRead, BufReader};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

mod cmd;

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The Ray environment's bin folder, or `None` (the test is then skipped).
fn ray_bin() -> Option<PathBuf> {
    let out = Command::new(repo().join("scripts/install-ray.sh"))
        .output()
        .ok()?;
    if !out.status.success() {
        eprintln!(
            "skipped: Ray could not be installed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        return None;
    }
    let py = String::from_utf8_lossy(&out.stdout)
        .lines()
        .last()?
        .trim()
        .to_string();
    Some(repo().join(py).parent()?.to_path_buf())
}

/// A port nobody listens on now.
fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// Stops the cluster whatever happens to the test: each node is a `ray start --block` in a
/// process group of its own, and only those groups are signalled. `ray stop --force` is not
/// used: it kills every process on the machine whose command line names a Ray part
/// (`monitor.py`, `reporter.py`, ...), and the host running the tests may have some.
struct Cluster {
    nodes: Vec<std::process::Child>,
}

impl Cluster {
    /// Starts `ray start ... --block` in a process group of its own and keeps it.
    fn start(&mut self, ray: &Path, args: &[&str]) -> u32 {
        let child = ray_env(Command::new(ray).args(args).arg("--block"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .process_group(0)
            .spawn()
            .unwrap();
        let id = child.id();
        self.nodes.push(child);
        id
    }
}

/// Sends `signal` to the process group `group`.
fn signal_group(group: u32, signal: &str) {
    let _ = Command::new("kill")
        .args([signal, "--", &format!("-{group}")])
        .stderr(Stdio::null())
        .status();
}

impl Drop for Cluster {
    fn drop(&mut self) {
        // SIGTERM first, so that each node's own shutdown stops its workers, then SIGKILL for
        // whatever is left of the groups.
        for n in &self.nodes {
            signal_group(n.id(), "-TERM");
        }
        let t0 = Instant::now();
        while t0.elapsed() < Duration::from_secs(10)
            && self.nodes.iter_mut().any(|n| matches!(n.try_wait(), Ok(None)))
        {
            std::thread::sleep(Duration::from_millis(200));
        }
        for n in &mut self.nodes {
            signal_group(n.id(), "-KILL");
            let _ = n.wait();
        }
    }
}

fn ray_env(c: &mut Command) -> &mut Command {
    c.env_remove("RAY_ADDRESS")
        .env("RAY_USAGE_STATS_ENABLED", "0")
        // Notice a dead node within seconds, not the default half minute.
        .env("RAY_health_check_period_ms", "1000")
        .env("RAY_health_check_failure_threshold", "3")
}

#[test]
fn a_run_on_ray_survives_a_node_killed_mid_iteration() {
    let Some(bin) = ray_bin() else { return };
    let ray = bin.join("ray");
    let python = bin.join("python");
    let root = Path::new(env!("CARGO_TARGET_TMPDIR")).join("ray-driver");
    let _ = std::fs::remove_dir_all(&root);
    std::fs::create_dir_all(&root).unwrap();
    let run = root.join("run");
    let r = run.to_str().unwrap();
    // A tiny run with more and slower games (11x11, longer searches), so that the kill lands
    // while a task is in flight on the node killed.
    let config = root.join("tiny.toml");
    let text = std::fs::read_to_string(repo().join("configs/train/tiny.toml"))
        .unwrap()
        .replace("games_per_iteration = 8", "games_per_iteration = 16")
        .replace("simulations = 8\n", "simulations = 160\n")
        .replace("ply_limit = 40\n", "ply_limit = 160\n")
        .replace("rules = \"brandubh\"", "rules = \"hnefatafl\"");
    std::fs::write(&config, text).unwrap();
    let (ok, _, e) = cmd::tafl_text(&[
        "train",
        config.to_str().unwrap(),
        "--out",
        r,
        "--stop-after",
        "0",
        "--quiet",
        "--no-install",
    ]);
    assert!(ok, "{e}");

    let port = free_port();
    let address = format!("127.0.0.1:{port}");
    let mut cluster = Cluster { nodes: Vec::new() };
    cluster.start(
        &ray,
        &[
            "start",
            "--head",
            "--node-ip-address=127.0.0.1",
            &format!("--port={port}"),
            "--num-cpus=1",
            // Small object stores: the run's files are a few MB, and CI machines are small.
            "--object-store-memory=200000000",
            "--include-dashboard=false",
            "--disable-usage-stats",
        ],
    );
    let alive_nodes = || {
        let out = ray_env(Command::new(&python).args([
            "-c",
            &format!("import ray; ray.init(address='{address}', log_to_driver=False); print(len([n for n in ray.nodes() if n['Alive']]))"),
        ]))
        .output()
        .unwrap();
        String::from_utf8_lossy(&out.stdout)
            .trim()
            .parse::<usize>()
            .unwrap_or(0)
    };
    let wait_for = |nodes: usize, what: &str| {
        let t0 = Instant::now();
        while alive_nodes() < nodes {
            assert!(t0.elapsed() < Duration::from_secs(90), "{what}");
            std::thread::sleep(Duration::from_secs(1));
        }
    };
    wait_for(1, "the head node did not start");
    // The second node, at a loopback address of its own (the driver attaches to the node at its
    // own address, which must be the head, as on a real cluster, so that killing the second
    // node leaves the driver its raylet), with a node manager port of its own: its raylet, its
    // agents and every worker it starts carry the port on their command lines, which is how the
    // test finds and kills all of them at once, as losing the machine would.
    let node_port = free_port();
    let group = cluster.start(
        &ray,
        &[
            "start",
            &format!("--address={address}"),
            "--node-ip-address=127.0.0.2",
            &format!("--node-manager-port={node_port}"),
            "--num-cpus=1",
            "--object-store-memory=200000000",
            "--disable-usage-stats",
        ],
    );
    // Both nodes up before the driver starts, so that its tasks spread over both.
    wait_for(2, "the second node did not join");

    let mut driver = ray_env(Command::new(&python).args([
        repo().join("ray/driver.py").to_str().unwrap(),
        r,
        "--tafl",
        env!("CARGO_BIN_EXE_tafl"),
        "--address",
        &address,
        "--actors",
        "2",
        "--games-per-task",
        "2",
        "--node-ip-address",
        "127.0.0.1",
    ]))
    .stdout(Stdio::piped())
    .stderr(Stdio::piped())
    .spawn()
    .unwrap();
    let stdout = BufReader::new(driver.stdout.take().unwrap());
    let mut said = Vec::new();
    let mut killed = false;
    let node_of = |l: &str| l.rsplit("on node ").next().unwrap_or_default().to_string();
    let mut first_nodes = std::collections::BTreeSet::new();
    for line in stdout.lines() {
        let line = line.unwrap();
        said.push(line.clone());
        // Mid-iteration: once tasks of iteration 1 have finished on both nodes, while others
        // are in flight on both.
        if !killed && line.contains("iteration 1: task") {
            first_nodes.insert(node_of(&line));
            if first_nodes.len() == 2 {
                let pattern = format!("manager.port={node_port}");
                let k = Command::new("pkill")
                    .args(["-9", "-f", &pattern])
                    .status()
                    .unwrap();
                assert!(k.success(), "no process of node 2 found");
                signal_group(group, "-KILL");
                killed = true;
                said.push("(node 2 killed)".to_string());
            }
        }
    }
    let status = driver.wait().unwrap();
    let mut err = String::new();
    std::io::Read::read_to_string(&mut driver.stderr.take().unwrap(), &mut err).unwrap();
    let said = said.join("\n");
    eprintln!("{said}");
    assert!(status.success(), "driver failed:\n{said}\n{err}");
    assert!(killed, "{said}");
    assert!(
        said.contains("done:") && said.contains("is at iteration 3"),
        "{said}"
    );
    // The task in flight on the killed node was lost, and played again.
    assert!(said.contains("lost") && said.contains("retrying"), "{said}");
    // After the kill, every task ran on the node left.
    let second: std::collections::BTreeSet<String> = said
        .lines()
        .filter(|l| l.contains("iteration 2: task"))
        .map(node_of)
        .collect();
    assert_eq!(second.len(), 1, "{said}");
    assert!(first_nodes.is_superset(&second), "{said}");

    // Every game's shard is there, and every shard reads back whole.
    let ruleset = tafl_engine::Ruleset::builtin("hnefatafl");
    let encoder = tafl_nn::Encoder::new(&ruleset);
    for it in 1..=2 {
        let dir = run.join("shards").join(format!("iter-{it:04}"));
        let mut games = 0;
        let mut k = 0;
        while dir.join(format!("shard-{k:04}.json")).exists() {
            let tally: serde_json::Value = serde_json::from_str(
                &std::fs::read_to_string(dir.join(format!("shard-{k:04}.json"))).unwrap(),
            )
            .unwrap();
            games += tally["games"].as_u64().unwrap();
            let samples = tafl_trainer::shard::read_shard(
                &dir.join(format!("shard-{k:04}.bin")),
                encoder.input_len(),
                encoder.policy_size(),
            )
            .unwrap();
            assert!(!samples.is_empty());
            k += 1;
        }
        assert_eq!(games, 16, "iteration {it}: {k} shards");
    }
    let state: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(run.join("state.json")).unwrap()).unwrap();
    assert_eq!(state["history"].as_array().unwrap().len(), 2);
    drop(cluster);
}
