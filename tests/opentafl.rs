//! OpenTafl interchange: rules strings (import, export, round trip, refusals) and `.otg` game
//! records (round trip, reading OpenTafl's notation).

use std::process::Command;
use tafl_engine::{
    formats::{
        otn_move_text, parse_csv_games, ruleset_from_opentafl, ruleset_to_opentafl, OtgRecord, ReplayEnd,
    },
    rules::{
        CornersSpec, Escape, Hostility, KingArmed, KingCapture, NoMoves, Repetition, Shieldwall, ThroneKind,
        ThronePass, YesNo, BUILTIN_IDS,
    },
    with_board, BitSet, Game, Outcome, Piece, Reason, Rules, RulesFile, Ruleset, Side, Sq,
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
    assert_eq!(
        (rs.file.shieldwall, rs.file.exit_fort),
        (Shieldwall::Yes, YesNo::Yes)
    );

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
        ("kj:j", "king jumps"),
        ("nj:x", "nj:x"),
        ("ber:c", "berserk"),
        ("spd:3", "speed limits"),
        ("spd:3,4", "spd"),
        ("afor:a2,b1", "fortress"),
        ("dfor:f5", "dfor"),
        ("sw:w", "weak shieldwalls"),
        ("afor:a2, aforh:T", "fortress"),
        ("ks:m", "middleweight"),
        ("spd:-1,9", "speed limits"),
        ("spd:-1,-1,-1,-1,-1,-1,-1,3,", "speed limits"),
        ("spd:1,2,3", "3 limits"),
        ("tfr:l", "tfr:l"),
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
    // A corner square inside the board with OpenTafl's default `corp:K`: the king could slide
    // through it onto the ordinary squares beyond.
    let e = ruleset_from_opentafl(&with("cor:a1,k1,a11,k11,c3,"))
        .unwrap_err()
        .to_string();
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

#[test]
fn entries_that_change_nothing_for_these_pieces_and_squares_are_accepted() {
    // Each entry, added to a ruleset that has no piece or square it speaks of, reads as the
    // same game as the ruleset without it.
    let cph = format!("dim:11 name:Copenhagen atkf:y tfr:w sw:s efe:y start:{COPENHAGEN_START}");
    let fetlar = format!("dim:11 name:Fetlar atkf:y start:{COPENHAGEN_START}");
    let sea = "dim:9 name:Sea_Battle esc:e atkf:y ka:n cor: cen: start:/3ttt3/4t4/4T4/t3T3t/ttTTKTTtt/t3T3t/4T4/4t4/3ttt3/";
    let with = |base: &str, entries: &str| base.replace(" start:", &format!(" {entries} start:"));
    for (base, entries) in [
        // Jumps of knights, commanders, mercenaries and guards, none of which are in play.
        (fetlar.as_str(), "nj:n cj:n"),
        (fetlar.as_str(), "nj:j cj:c mj:r gj:c"),
        (cph.as_str(), "nj:r cj:n"),
        // Options of fortresses the board does not have.
        (fetlar.as_str(), "afor: dfor: aforh:tT dforp: afors:K dforre:"),
        // Speed limits that no slide reaches, or for pieces not in play.
        (fetlar.as_str(), "spd:-1"),
        (fetlar.as_str(), "spd:10"),
        (fetlar.as_str(), "spd:-1,-1,2,-1,-1,-1,-1,-1,"),
        (fetlar.as_str(), "spd:-1,1,1,1,1,1,-1,1,1,-1,1,1"),
        // A shieldwall option without shieldwalls; a weak shieldwall without corners.
        (fetlar.as_str(), "swf:n"),
        (sea, "ber:n linc:n"),
        // Throne options without a throne, corner options without corners.
        (sea, "linc:y cens:tTK cenp:T cenh:tT cenhe:T cenre:"),
        (sea, "corh:T cors:tK corre: corp:tT"),
    ] {
        let text = with(base, entries);
        let rs = ruleset_from_opentafl(&text).unwrap_or_else(|e| panic!("{entries}: {e}"));
        let plain = ruleset_from_opentafl(base).unwrap_or_else(|e| panic!("{base}: {e}"));
        assert_eq!(rs.corners, plain.corners, "{entries}");
        assert_eq!(rs.throne, plain.throne, "{entries}");
        assert_eq!(start(&rs), start(&plain), "{entries}");
        assert_eq!(rs.file.first, plain.file.first, "{entries}");
        assert_eq!(
            (
                rs.file.king_capture,
                rs.file.king_armed,
                rs.file.escape,
                rs.file.shieldwall
            ),
            (
                plain.file.king_capture,
                plain.file.king_armed,
                plain.file.escape,
                plain.file.shieldwall
            ),
            "{entries}"
        );
        assert_eq!(
            (rs.file.repetition, rs.file.encirclement, rs.file.exit_fort),
            (
                plain.file.repetition,
                plain.file.encirclement,
                plain.file.exit_fort
            ),
            "{entries}"
        );
        if rs.throne.is_some() {
            assert_eq!(
                (
                    rs.file.throne_pass,
                    rs.file.throne_stop,
                    rs.file.empty_throne_hostile
                ),
                (
                    plain.file.throne_pass,
                    plain.file.throne_stop,
                    plain.file.empty_throne_hostile
                ),
                "{entries}"
            );
        }
        if !rs.corners.is_empty() {
            assert_eq!(rs.file.corner_hostile, plain.file.corner_hostile, "{entries}");
        }
    }
    // A weak shieldwall is a strong one where no corner can close it.
    let rs = ruleset_from_opentafl(&with(sea, "sw:w")).unwrap();
    assert_eq!(rs.file.shieldwall, Shieldwall::Yes);
    // A middleweight king is a strong one where reaching the edge wins.
    let rs = ruleset_from_opentafl(&with(sea, "ks:m")).unwrap();
    assert_eq!(rs.file.king_capture, KingCapture::Strong);
    // Alea Evangelii's 2x2 corner blocks with OpenTafl's default `corp:K`: a king sliding
    // through one only reaches another square of the same block.
    let alea = ruleset_to_opentafl(&Ruleset::builtin("alea-evangelii")).replace(" corp:", "");
    let rs = ruleset_from_opentafl(&alea).unwrap_or_else(|e| panic!("{e}\n{alea}"));
    assert_eq!(rs.corners, Ruleset::builtin("alea-evangelii").corners);
}

#[test]
fn rules_files_may_hold_an_opentafl_rules_string_or_game_record() {
    let dir = std::env::temp_dir().join(format!("tafl-rules-formats-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let tablut = Ruleset::builtin("tablut");
    let string = ruleset_to_opentafl(&tablut);
    // A rules string (as OpenTafl keeps a variant, one line), the same as an engine protocol
    // line, and a game record: each reads as Tablut wherever a rules file is taken.
    let rules_txt = dir.join("tablut.txt");
    std::fs::write(&rules_txt, format!("{string}\n")).unwrap();
    let otep_line = dir.join("tablut-otep.txt");
    std::fs::write(&otep_line, format!("rules {string}\n")).unwrap();
    let rules = Rules::<u128>::new(&tablut).unwrap();
    let otg = dir.join("game.otg");
    std::fs::write(
        &otg,
        OtgRecord::from_game(&rules, &scripted_game(&rules, 1, 20)).to_text(),
    )
    .unwrap();
    for file in [&rules_txt, &otep_line, &otg] {
        let rs = Ruleset::load(file.to_str().unwrap()).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(knobs(&rs), knobs(&tablut), "{}", file.display());
        assert_eq!(start(&rs), start(&tablut));
        let out = Command::new(env!("CARGO_BIN_EXE_tafl"))
            .args(["rules", file.to_str().unwrap(), "--opentafl"])
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        assert_eq!(String::from_utf8_lossy(&out.stdout).trim_end(), string);
        // Another command that takes a rules file: the leaf counts are Tablut's.
        let out = Command::new(env!("CARGO_BIN_EXE_tafl"))
            .args(["perft", file.to_str().unwrap(), "1"])
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        assert_eq!(String::from_utf8_lossy(&out.stdout).lines().last(), Some("72"));
    }
    // Neither: the error names the file and says why each format failed.
    let bad = dir.join("bad.txt");
    std::fs::write(
        &bad,
        "dim:9 name:Broken kj:j start:/3ttt3/4t4/4T4/t3T3t/ttTTKTTtt/t3T3t/4T4/4t4/3ttt3/\n",
    )
    .unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_tafl"))
        .args(["rules", bad.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let e = String::from_utf8_lossy(&out.stderr);
    for needle in [
        "bad.txt",
        "TOML rules file:",
        "OpenTafl rules string: `kj:j`: king jumps",
        "OpenTafl game record (.otg): the `[rules:...]` tag is missing",
    ] {
        assert!(e.contains(needle), "{needle}: {e}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Plays a game with pseudo-random legal moves (a fixed linear congruential generator).
fn scripted_game<B: BitSet>(rules: &Rules<B>, seed: u64, max_plies: usize) -> Game<B> {
    let mut g = Game::new(rules);
    let mut x = seed;
    for _ in 0..max_plies {
        if g.outcome().is_some() {
            break;
        }
        let moves = g.moves(rules).to_vec();
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
    assert_eq!(replayed.history(), game.history());
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
    for (moves, named) in [("1. d2-d3\n", "move 1"), ("1. d2-f2xf3\n", "capture")] {
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

/// OpenTafl's own Tablut (Linnaean capture) and Copenhagen with the relaxed shieldwall import
/// as knobs and round-trip; their rules panels say what the knobs do.
#[test]
fn linnaean_capture_and_the_relaxed_shieldwall_import_as_knobs() {
    let tablut = "dim:9 name:Tablut esc:e atkf:y ks:c nj:n cor: cenp:tcnkTCNK cens: cenh: cenhe:tcnkTCNK linc:y start:/3ttt3/4t4/4T4/t3T3t/ttTTKTTtt/t3T3t/4T4/4t4/3ttt3/";
    let rs = ruleset_from_opentafl(tablut).unwrap();
    assert_eq!(rs.file.linnaean_capture, YesNo::Yes);
    let back = ruleset_from_opentafl(&ruleset_to_opentafl(&rs)).unwrap();
    assert_eq!(knobs(&back), knobs(&rs));
    assert!(tafl_engine::rules::rules_panel(&rs).contains("Linnaean capture"));
    // In the rules file it is a knob of its own, written only when set.
    assert!(rs.to_toml().contains("linnaean_capture = \"yes\""));
    assert!(!Ruleset::builtin("tablut").to_toml().contains("linnaean"));

    let relaxed = format!(
        "dim:11 name:Copenhagen_(relaxed_shieldwall) atkf:y tfr:w sw:s swf:n efe:y start:{COPENHAGEN_START}"
    );
    let rs = ruleset_from_opentafl(&relaxed).unwrap();
    assert_eq!(rs.file.shieldwall, Shieldwall::Relaxed);
    let text = ruleset_to_opentafl(&rs);
    assert!(text.contains("sw:s swf:n"), "{text}");
    assert_eq!(knobs(&ruleset_from_opentafl(&text).unwrap()), knobs(&rs));
    assert!(tafl_engine::rules::rules_panel(&rs).contains("Shieldwall (relaxed)"));
    // `swf:y` (the default) keeps Copenhagen's shieldwall.
    let strict = relaxed.replace("swf:n", "swf:y");
    assert_eq!(
        ruleset_from_opentafl(&strict).unwrap().file.shieldwall,
        Shieldwall::Yes
    );
}
