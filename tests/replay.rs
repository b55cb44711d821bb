//! Replays the 1,752 real Copenhagen games of `tests/data/copenhagen-games.csv` (RULES.md,
//! "Real games to replay"): every move legal, every recorded capture reproduced, and the
//! games the rules end before their record does listed with the move and the reason.

mod cmd;

use tafl_engine::{
    formats::{parse_csv_games, replay_csv, CsvGame, CsvResult, ReplayEnd},
    Reason, Rules, Ruleset, Side,
};

fn games_text() -> String {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/copenhagen-games.csv");
    std::fs::read_to_string(path).expect("tests/data/copenhagen-games.csv")
}

fn copenhagen() -> Rules<u128> {
    Rules::new(&Ruleset::builtin("copenhagen")).expect("copenhagen fits in u128")
}

/// The games that continue past a third repetition, which Copenhagen ends (attackers win):
/// (line, move that made the third occurrence).
const ENDED_BY_REPETITION: [(usize, usize); 11] = [
    (298, 49),
    (443, 22),
    (509, 65),
    (513, 37),
    (550, 32),
    (697, 95),
    (827, 31),
    (898, 50),
    (907, 29),
    (978, 118),
    (1542, 35),
];

#[test]
fn every_copenhagen_game_replays_with_its_captures() {
    let rules = copenhagen();
    let text = games_text();
    let s = replay_csv(&rules, &text).expect("the file parses");

    assert_eq!(s.games, 1752);
    assert_eq!(s.illegal_moves(), 0, "{s}");
    assert_eq!(s.capture_mismatches(), 0, "{s}");
    assert!(s.mismatches.is_empty(), "{s}");

    // Every capture the record marks on a played move is made, and no other.
    assert_eq!(s.captures_matched, s.recorded_captures);
    // Counted independently from the raw records: distinct marks on the plies played.
    let games = parse_csv_games(11, &text).unwrap();
    let mut expected_captures = 0;
    let mut expected_plies = 0;
    for g in &games {
        let played = match ENDED_BY_REPETITION.iter().find(|(line, _)| *line == g.line) {
            Some(&(_, ply)) => ply,
            None => g.moves.len(),
        };
        expected_plies += played;
        expected_captures += g.moves[..played].iter().map(|m| m.captures.len()).sum::<usize>();
    }
    assert_eq!(s.captures_matched, expected_captures);
    assert_eq!(s.plies, expected_plies);
    assert_eq!(
        (s.plies, s.captures_matched, s.duplicate_marks),
        (86_879, 13_209, 240)
    );

    // The games the rules end early: all by a third repetition, which under Copenhagen the
    // attackers win whoever repeated.
    let early: Vec<(usize, usize)> = s.ended_early.iter().map(|e| (e.line, e.ply)).collect();
    assert_eq!(early, ENDED_BY_REPETITION);
    for e in &s.ended_early {
        assert_eq!(e.outcome.reason, Reason::Repetition, "line {}", e.line);
        assert_eq!(e.outcome.winner, Some(Side::Attackers), "line {}", e.line);
        assert!(e.unplayed > 0);
    }
    assert_eq!(s.ended_early_by_reason.get("repetition"), Some(&11));

    // Games whose last move ends them agree with the recorded result; the rest stop before
    // the rules end them (resignations, timeouts, agreed draws, unfinished games).
    let open: usize = s.open.values().sum();
    assert_eq!(s.results_matched() + open + s.ended_early.len(), s.games);
    assert_eq!(s.results_matched(), 370);
    assert_eq!(s.open.get(&CsvResult::Ongoing), Some(&31));
    for (result, _) in s.ended.keys() {
        assert!(matches!(result, CsvResult::White | CsvResult::Black));
    }
}

#[test]
fn replay_reports_each_game_and_stops_at_the_repetition() {
    let rules = copenhagen();
    let text = games_text();
    let line = text.lines().nth(297).unwrap();
    let g = CsvGame::parse(11, 298, line).unwrap();
    let r = g.replay(&rules);
    match r.end {
        ReplayEnd::EndedEarly {
            ply,
            outcome,
            unplayed,
        } => {
            assert_eq!(ply, 49);
            assert_eq!(outcome.reason, Reason::Repetition);
            assert_eq!(unplayed, g.moves.len() - 49);
        }
        other => panic!("line 298 should end early by repetition, got {other:?}"),
    }
    assert_eq!(r.plies, 49);
}

#[test]
fn rules_without_shieldwall_disagree_with_the_records() {
    // The checker has teeth: the same games under Hnefatafl (no shieldwall) miss the
    // shieldwall captures the records mark.
    let rules = Rules::<u128>::new(&Ruleset::builtin("hnefatafl")).unwrap();
    let s = replay_csv(&rules, &games_text()).unwrap();
    assert!(s.capture_mismatches() > 0);
    assert_eq!(s.illegal_moves(), 0);
}

#[test]
fn bad_lines_fail_with_their_line_number() {
    let good = "d1-d3 e5-e2 g1-g3 f4-c4 g3-e3xe2,1,0,Ongoing";
    for (bad, why) in [
        ("d1-d3 e5-e2", "4 columns"),
        ("d1-d3 e5-e2,0,0,Resigned", "result"),
        ("d1-d3 e5-e2,0,-1,White", "defender_captures"),
        ("d1-d3 e5-e2,1,0,White", "attacker_captures"),
        ("d1-d3 e5-q2,0,0,White", "move 2"),
        ("d1-d3 e5-e2xe2xzz,0,0,White", "move 2"),
        ("d1-d3 timeout e5-e2,0,0,White", "timeout"),
        (",0,0,White", "empty"),
    ] {
        let text = format!("{good}\n\n{bad}\n{good}\n");
        let e = parse_csv_games(11, &text).unwrap_err().to_string();
        assert!(
            (e.starts_with("line 3:") || e.starts_with("line 3,")) && e.contains(why),
            "{bad}: {e}"
        );
        let rules = copenhagen();
        assert!(replay_csv(&rules, &text).is_err());
    }
    // A header line and blank lines are fine.
    let text = format!("moves,attacker_captures,defender_captures,result\n{good}\n\n");
    assert_eq!(parse_csv_games(11, &text).unwrap().len(), 1);
}

#[test]
fn an_illegal_move_or_a_wrong_capture_is_a_mismatch() {
    let rules = copenhagen();
    // d6 holds a defender: the attackers cannot move it.
    let s = replay_csv(&rules, "d1-d3 e5-e2 d6-d4,0,0,Ongoing").unwrap();
    assert_eq!(s.illegal_moves(), 1);
    let shown = s.to_string();
    assert!(shown.contains("line 1: move 3 `d6-d4` is illegal"), "{shown}");
    // A capture that does not happen.
    let s = replay_csv(&rules, "d1-d3 e5-e2 g1-g3xg2,1,0,Ongoing").unwrap();
    assert_eq!(s.capture_mismatches(), 1);
    // A capture the record leaves out.
    let s = replay_csv(&rules, "d1-d3 e5-e2 g1-g3 f4-c4 g3-e3,0,0,Ongoing").unwrap();
    assert_eq!(s.capture_mismatches(), 1);
    // A timeout whose result names the wrong winner (the attackers were to move).
    let s = replay_csv(&rules, "d1-d3 e5-e2 timeout,0,0,Black").unwrap();
    assert_eq!(s.mismatches.len(), 1);
    let s = replay_csv(&rules, "d1-d3 e5-e2 timeout,0,0,White").unwrap();
    assert!(s.mismatches.is_empty());
}

use cmd::tafl_text as tafl;

#[test]
fn the_replay_command_prints_the_summary_and_fails_on_mismatches() {
    let file = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/copenhagen-games.csv");
    let (ok, out, err) = tafl(&["replay", "copenhagen", file]);
    assert!(ok, "{err}");
    assert!(out.contains("games replayed:      1752"), "{out}");
    assert!(out.contains("mismatches:          0"), "{out}");
    assert!(out.contains("repetition 11"), "{out}");
    let (ok, _, err) = tafl(&["replay", "hnefatafl", file]);
    assert!(!ok);
    assert!(err.contains("disagree"), "{err}");
    let (ok, _, err) = tafl(&["replay", "copenhagen", "/nonexistent/games.csv"]);
    assert!(!ok);
    assert!(err.contains("cannot read"), "{err}");
}
