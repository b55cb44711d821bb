//! OpenTafl interchange: rules strings (import, export, round trip, refusals) and `.otg` game
//! records (round trip, reading OpenTafl's notation).

use std::process::Command;
use tafl_engine::{
    otn_move_text, parse_csv_games, ruleset_from_opentafl, ruleset_to_opentafl, with_board, BitSet,
    CornersSpec, Escape, Game, Hostility, KingArmed, KingCapture, NoMoves, OtgRecord, Outcome, Piece, Reason,
    Repetition, ReplayEnd, Rules, RulesFile, Ruleset, Side, Sq, ThroneKind, ThronePass, YesNo, BUILTIN_IDS,
};

const COPENHAGEN_START: &str = "/3ttttt3/5t5/11/t4T4t/t3TTT3t/tt1TTKTT1tt/t3TTT3t/t4T4t/11/5t5/3ttttt3/";

/// The knobs of a ruleset, without the text form of its start position.
fn knobs(rs: &Ruleset) -> RulesFile {
    let mut f = rs.file.clone();
    f.setup = None;
    f.position = None;
    f
}

fn start(rs: &Ruleset) -> Vec<(Sq, Piece)> {
    let mut v = rs.start.clone();
    v.sort_by_key(|x| x.0);
    v
}

#[test]
fn every_builtin_ruleset_round_trips() {
    for id in BUILTIN_IDS {
        let rs = Ruleset::builtin(id);
        let text = ruleset_to_opentafl(&rs);
        assert!(text.starts_with(&format!("dim:{} ", rs.size())), "{text}");
        assert!(
            text.split(' ').next_back().unwrap().starts_with("start:/"),
            "{text}"
        );
        let back = ruleset_from_opentafl(&text).unwrap_or_else(|e| panic!("{id}: {e}\n{text}"));
        assert_eq!(knobs(&back), knobs(&rs), "{id}: {text}");
        assert_eq!(back.corners, rs.corners, "{id}");
        assert_eq!(back.throne, rs.throne, "{id}");
        assert_eq!(start(&back), start(&rs), "{id}");
        // Exporting again gives the same string.
        assert_eq!(ruleset_to_opentafl(&back), text, "{id}");
    }
}

#[test]
fn opentafls_copenhagen_string_imports_as_copenhagen() {
    // The string OpenTafl itself uses for Copenhagen. OpenTafl's `tfr:w` ends the game
    // against the side that makes the third repetition; everything else is our copenhagen.
    let rs = ruleset_from_opentafl(&format!(
        "dim:11 name:Copenhagen atkf:y tfr:w sw:s efe:y start:{COPENHAGEN_START}"
    ))
    .unwrap();
    let ours = Ruleset::builtin("copenhagen");
    let mut expected = knobs(&ours);
    expected.id = "copenhagen".into();
    expected.name = "Copenhagen".into();
    expected.repetition = Repetition::MoverLoses;
    assert_eq!(knobs(&rs), expected);
    assert_eq!(start(&rs), start(&ours));
    assert_eq!(rs.file.encirclement, YesNo::Yes, "surf defaults to y");
}

#[test]
fn the_examples_of_the_notation_spec_import() {
    // Fetlar / Copenhagen examples: defenders first, defaults elsewhere.
    let rs = ruleset_from_opentafl(&format!("dim:11 atkf:n sw:s efe:y start:{COPENHAGEN_START}")).unwrap();
    assert_eq!(rs.file.first, Side::Defenders);
    assert_eq!(rs.file.name, "Unknown Tafl");
    assert_eq!(rs.file.repetition, Repetition::Draw);
    assert_eq!((rs.file.shieldwall, rs.file.exit_fort), (YesNo::Yes, YesNo::Yes));

    // Brandub: weak king, the centre hostile to nobody.
    let rs =
        ruleset_from_opentafl("dim:7 ks:n cenhe: cenh: start:/3t3/3t3/3T3/ttTKTtt/3T3/3t3/3t3/").unwrap();
    assert_eq!(rs.file.king_capture, KingCapture::Weak);
    assert_eq!(rs.file.empty_throne_hostile, Hostility::None);
    assert_eq!(rs.file.occupied_throne_hostile_to_attackers, YesNo::No);
    assert_eq!(rs.file.throne_pass, ThronePass::All);
    assert_eq!(start(&rs), start(&Ruleset::builtin("brandubh")));

    // Sea Battle: edge escape, unarmed king, no centre and no corners.
    let rs = ruleset_from_opentafl(
        "dim:9 esc:e ka:n cen: cenhe: cor: start:/3ttt3/4t4/4T4/t3T3t/ttTTKTTtt/t3T3t/4T4/4t4/3ttt3/",
    )
    .unwrap();
    assert_eq!(rs.file.escape, Escape::Edge);
    assert_eq!(rs.file.king_armed, KingArmed::No);
    assert_eq!(rs.file.throne, ThroneKind::None);
    assert_eq!(rs.file.corners, CornersSpec::Word("none".into()));
    assert!(rs.corners.is_empty() && rs.throne.is_none());

    // Tawlbwrdd's Bell layout as the spec writes it is our tawlbwrdd start.
    let rs = ruleset_from_opentafl(
        "dim:11 esc:e cor: cen: start:/4ttt4/4t1t4/5t5/5T5/tt2TTT2tt/t1tTTKTTt1t/tt2TTT2tt/5T5/5t5/4t1t4/4ttt4/",
    )
    .unwrap();
    assert_eq!(start(&rs), start(&Ruleset::builtin("tawlbwrdd")));
}

#[test]
fn inverted_start_positions_and_corner_lists_import() {
    // `starti` lists the top rank first; `cor` takes a list with a trailing comma.
    let rs = ruleset_from_opentafl(
        "dim:7 name:Puzzle atkf:y tfr:w cor:g7, sw:s efe:y starti:/tt2T2/1t2K2/2tt3/6t/3TTt1/4Tt1/4Tt1/",
    )
    .unwrap();
    let n = 7;
    let sq = |s: &str| tafl_engine::parse_square(n, s).unwrap();
    assert_eq!(rs.corners, vec![sq("g7")]);
    assert_eq!(rs.file.corners, CornersSpec::Squares(vec!["g7".into()]));
    assert!(rs.start.contains(&(sq("e6"), Piece::King)));
    assert!(rs.start.contains(&(sq("a7"), Piece::Attacker)));
    assert!(rs.start.contains(&(sq("e1"), Piece::Defender)));
    assert_eq!(rs.file.repetition, Repetition::MoverLoses);
    assert_eq!(rs.file.id, "puzzle");
}

#[test]
fn unsupported_rules_are_refused_by_name() {
    let base = format!("dim:11 name:Copenhagen atkf:y efe:y start:{COPENHAGEN_START}");
    let with = |entry: &str| base.replace(" start:", &format!(" {entry} start:"));
    for (entry, named) in [
        ("kj:r", "kj:r"),
        ("nj:j", "nj:j"),
        ("cj:c", "cj:c"),
        ("ber:c", "berserk"),
        ("spd:3", "speed limits"),
        ("spd:3,4", "spd"),
        ("linc:y", "Linnaean"),
        ("afor:a2,b1", "fortress"),
        ("dfor:f5", "dfor"),
        ("sw:w", "weak shieldwalls"),
        ("swf:n", "swf"),
        ("ks:m", "middleweight"),
        ("tfr:l", "tfr:l"),
        ("cen:e5", "cen"),
        ("cenp:T", "cenp"),
        ("cens:tK", "soldiers"),
        ("cors:TK", "cors"),
        ("corh:T", "corh"),
        ("cenh:tT", "cenh"),
        ("bogus:1", "unknown entry `bogus:1`"),
        ("esc:x", "esc"),
        ("atkf:maybe", "atkf"),
        ("ka:z", "ka"),
        ("corh:tz", "piece type"),
        ("nocolon", "nocolon"),
    ] {
        let text = with(entry);
        let e = ruleset_from_opentafl(&text).unwrap_err().to_string();
        assert!(e.contains(named), "{entry}: {e}");
    }
    // Special pieces in the start position.
    for (piece, named) in [
        ('n', "knights"),
        ('C', "commanders"),
        ('m', "mercenaries"),
        ('G', "guards"),
        ('k', "attacking kings"),
    ] {
        let text = base.replace("/5t5/3ttttt3/", &format!("/5{piece}5/3ttttt3/"));
        let e = ruleset_from_opentafl(&text).unwrap_err().to_string();
        assert!(e.contains(named), "{piece}: {e}");
    }
    // The spec's Berserk example.
    let e = ruleset_from_opentafl(
        "dim:11 surf:n atkf:n kj:r ber:c start:/3ttttt3/5c5/11/t4T4t/t3NTT3t/tc1TTKTT1ct/t3TTT3t/t4T4t/11/5c5/3ttttt3/",
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("commanders"), "{e}");
    // Alea Evangelii's corner blocks with OpenTafl's default `corp:K` (the king slides through).
    let alea = ruleset_to_opentafl(&Ruleset::builtin("alea-evangelii")).replace(" corp:", "");
    let e = ruleset_from_opentafl(&alea).unwrap_err().to_string();
    assert!(e.contains("corp"), "{e}");
    // Structure.
    for (text, named) in [
        ("", "dim"),
        ("dim:11", "start"),
        ("dim:12 start:/1/", "dim:12"),
        ("dim:21 start:/1/", "dim:21"),
        ("dim:eleven start:/1/", "dim"),
        ("dim:7 dim:7 start:/3t3/3t3/3T3/ttTKTtt/3T3/3t3/3t3/", "twice"),
        ("dim:7 start:/3t3/3t3/3T3/ttTKTtt/3T3/3t3/", "rows"),
        ("dim:7 start:/3t3/3t3/3T3/ttTTTtt/3T3/3t3/3t3/", "king"),
        ("dim:7 cor: start:/3t3/3t3/3T3/ttTKTtt/3T3/3t3/3t3/", "corners"),
        (
            "dim:7 tafl-repetition:sometimes start:/3t3/3t3/3T3/ttTKTtt/3T3/3t3/3t3/",
            "defenders_lose",
        ),
    ] {
        let e = ruleset_from_opentafl(text).unwrap_err().to_string();
        assert!(e.contains(named), "{text}: {e}");
    }
}

#[test]
fn our_extension_entries_carry_what_opentafl_cannot_say() {
    let cph = ruleset_to_opentafl(&Ruleset::builtin("copenhagen"));
    assert!(
        cph.contains(" tfr:w ") && cph.contains(" tafl-repetition:defenders_lose "),
        "{cph}"
    );
    let fetlar = ruleset_to_opentafl(&Ruleset::builtin("fetlar"));
    assert!(fetlar.contains(" tafl-no_moves:draw "), "{fetlar}");
    assert_eq!(
        ruleset_from_opentafl(&fetlar).unwrap().file.no_moves,
        NoMoves::Draw
    );
}

/// Plays a game with pseudo-random legal moves (a fixed linear congruential generator).
fn scripted_game<B: BitSet>(rules: &Rules<B>, seed: u64, max_plies: usize) -> Game<B> {
    let mut g = Game::new(rules);
    let mut x = seed;
    for _ in 0..max_plies {
        if g.outcome().is_some() {
            break;
        }
        let moves = g.position().moves(rules).to_vec();
        x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let mv = moves[(x >> 33) as usize % moves.len()];
        g.play(rules, mv).unwrap();
    }
    g
}

fn round_trip<B: BitSet>(rules: &Rules<B>, game: &Game<B>) {
    let rec = OtgRecord::from_game(rules, game);
    let text = rec.to_text();
    let back = OtgRecord::parse(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    assert_eq!(back.tags, rec.tags, "{text}");
    assert_eq!(back.moves, rec.moves, "{text}");
    assert_eq!(back.resigned, rec.resigned);
    assert_eq!(start(&back.ruleset), start(&rec.ruleset));
    let replayed = back.replay(rules).unwrap_or_else(|e| panic!("{e}\n{text}"));
    assert_eq!(replayed.moves(), game.moves());
    assert_eq!(replayed.outcome(), game.outcome());
    assert_eq!(knobs(&back.ruleset), knobs(&rules.ruleset));
}

#[test]
fn otg_records_round_trip() {
    // A real game that ends by the rules, from the Copenhagen test data: it has captures,
    // king moves, and a final move that ends the game.
    let rs = Ruleset::builtin("copenhagen");
    let rules = Rules::<u128>::new(&rs).unwrap();
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/copenhagen-games.csv"
    ))
    .unwrap();
    let mut checked = 0;
    for g in parse_csv_games(11, &text).unwrap() {
        if !matches!(g.replay(&rules).end, ReplayEnd::Ended { .. }) || checked >= 20 {
            continue;
        }
        let mut game = Game::new(&rules);
        for m in &g.moves {
            game.play(&rules, m.mv).unwrap();
        }
        assert!(game.outcome().is_some());
        let rec = OtgRecord::from_game(&rules, &game);
        assert!(
            rec.moves.iter().any(|m| m.starts_with('K')),
            "king moves are marked K"
        );
        round_trip(&rules, &game);
        checked += 1;
    }
    assert_eq!(checked, 20);

    // Short scripted games under every ruleset, including 19x19.
    for id in BUILTIN_IDS {
        let rs = Ruleset::builtin(id);
        with_board!(&rs, B, rules => {
            for seed in 0..5 {
                round_trip(&rules, &scripted_game(&rules, seed, 60));
            }
        });
    }
}

#[test]
fn otg_text_looks_like_opentafls() {
    let rs = Ruleset::builtin("brandubh");
    let rules = Rules::<u128>::new(&rs).unwrap();
    // Attackers capture the king: ... the last move is marked `++` and result 1.
    let g = (0..1000)
        .map(|seed| scripted_game(&rules, seed, 400))
        .find(|g| g.outcome().map(|o| o.reason) == Some(Reason::KingCaptured))
        .expect("some random game ends with the king captured");
    let text = OtgRecord::from_game(&rules, &g).to_text();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[0], "[compiler:tafl]");
    assert_eq!(lines[1], "[result:1]");
    assert!(lines[3].starts_with("[rules:dim:7 name:Brandubh "), "{text}");
    assert_eq!(lines[4], "");
    assert!(lines[5].starts_with("1. "), "{text}");
    assert!(text.trim_end().ends_with("++"), "{text}");
}

#[test]
fn otg_files_in_opentafls_notation_read_and_replay() {
    // Commentary, a variation, king moves marked `K`, captures with `/`, status marks and a
    // resignation, as OpenTafl writes them.
    let text = "[event:Test]\n[result:-1]\n[termination:Black resigns]\n\
        [rules:dim:7 name:Brandubh ks:n cenhe: cenh: start:/3t3/3t3/3T3/ttTKTtt/3T3/3t3/3t3/]\n\n\
        1. d2-f2 d3-d2\n[Opening.|A reply.]\n\n\
        1a.1.1a. g4-g3 d3-d2\n[|]\n\n\
        2. a4-a3 Kd4-d3+\n\
        3. f2-e2 d2-c2\n\
        4. e2-e3 ---\n";
    let rec = OtgRecord::parse(text).unwrap();
    assert_eq!(rec.tag("event"), Some("Test"));
    assert_eq!(rec.tag("result"), Some("-1"));
    assert_eq!(
        rec.moves,
        ["d2-f2", "d3-d2", "a4-a3", "Kd4-d3+", "f2-e2", "d2-c2", "e2-e3"]
    );
    assert!(rec.resigned);
    assert_eq!(rec.ruleset.file.king_capture, KingCapture::Weak);
    let rules = Rules::<u128>::new(&rec.ruleset).unwrap();
    let game = rec.replay(&rules).unwrap();
    assert_eq!(game.ply(), 7);
    assert_eq!(game.outcome(), None::<Outcome>);
    // The resignation survives a round trip.
    let again = OtgRecord::parse(&rec.to_text()).unwrap();
    assert_eq!(again, rec);

    // Move records in OpenTafl's notation.
    assert_eq!(otn_move_text(11, "g7-g10xf10").unwrap(), "g7-g10xf10");
    assert_eq!(otn_move_text(11, "e5-e8xe9/f8/d8").unwrap(), "e5-e8xe9xf8xd8");
    assert_eq!(otn_move_text(11, "Ke1-a1--").unwrap(), "e1-a1");
    assert_eq!(otn_move_text(11, "e3-e4xKe5++").unwrap(), "e3-e4");
    for (bad, named) in [
        ("ce6^e8", "commanders"),
        ("Ne6^=e8xce7/ne9", "knights"),
        ("Ne8=e4xe3", "knights"),
        ("e6^e8", "jumps"),
        ("e6-e8xe9?", "unexpected"),
        ("e6-z8", "square"),
        ("e6-e8xne9", "captured piece"),
    ] {
        let e = otn_move_text(11, bad).unwrap_err().to_string();
        assert!(e.contains(named), "{bad}: {e}");
    }
}

#[test]
fn bad_otg_records_fail_with_a_reason() {
    let rules = "[rules:dim:7 ks:n start:/3t3/3t3/3T3/ttTKTtt/3T3/3t3/3t3/]\n\n";
    for (text, named) in [
        ("1. d2-f2\n".to_string(), "rules"),
        ("[result 1]\n".to_string(), "line 1"),
        ("[result:1\n".to_string(), "line 1"),
        (
            "[rules:dim:7 kj:r start:/3t3/3t3/3T3/ttTKTtt/3T3/3t3/3t3/]\n".to_string(),
            "kj",
        ),
        (format!("{rules}2. d2-f2\n"), "out of order"),
        (format!("{rules}1. d2-f2 d3-d2 a4-a3\n"), "two moves"),
        (format!("{rules}1. d2-f2 [unclosed\n"), "not closed"),
        (format!("{rules}1. d2-f2 ---\n2. a4-a3\n"), "resignation"),
        (format!("{rules}d2-f2\n"), "before turn 1"),
        (format!("{rules}1. d2-f2 Nd3-d2\n"), "knights"),
    ] {
        let e = OtgRecord::parse(&text).unwrap_err().to_string();
        assert!(e.contains(named), "{text}: {e}");
    }
    // Parses, but does not replay: an illegal move, and a capture that does not happen.
    for (moves, named) in [("1. d2-d3\n", "move 1"), ("1. d2-f2xf3\n", "captured")] {
        let rec = OtgRecord::parse(&format!("{rules}{moves}")).unwrap();
        let r = Rules::<u128>::new(&rec.ruleset).unwrap();
        let e = rec.replay(&r).unwrap_err().to_string();
        assert!(e.contains(named), "{moves}: {e}");
    }
}

#[test]
fn the_rules_command_prints_the_opentafl_string() {
    let out = Command::new(env!("CARGO_BIN_EXE_tafl"))
        .args(["rules", "copenhagen", "--opentafl"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let s = String::from_utf8_lossy(&out.stdout);
    assert_eq!(s.trim_end(), ruleset_to_opentafl(&Ruleset::builtin("copenhagen")));
    assert!(
        s.starts_with("dim:11 name:Copenhagen_Hnefatafl atkf:y tfr:w sw:s efe:y "),
        "{s}"
    );
    let out = Command::new(env!("CARGO_BIN_EXE_tafl"))
        .args(["rules", "copenhagen", "--opentafl", "--toml"])
        .output()
        .unwrap();
    assert!(!out.status.success());
}
