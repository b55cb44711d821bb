//! Notation in and out: move text, OpenTafl position records, game records; and a file of
//! inputs that must all be refused with an error rather than a panic.

use proptest::prelude::*;
use tafl_engine::{board::*, formats::*, rules::*, *};

fn rules(id: &str) -> Rules<u128> {
    Rules::new(&Ruleset::builtin(id)).unwrap()
}

#[test]
fn moves_print_with_their_captures() {
    let r = rules("brandubh");
    let pos = Position::from_diagram(
        &r,
        "
        # . . . . . #
        . . . . . . .
        . . . D A . .
        A . . K . . A
        . . . . . . .
        . . . . . . .
        # A . . . . #",
        Side::Attackers,
    )
    .unwrap();
    let mut game = Game::from_position(&r, pos);
    let (mv, _) = parse_move(7, "b1-b5").unwrap();
    game.play(&r, mv).unwrap();
    assert_eq!(played_text(7, &game.history()[0]), "b1-b5");
    let (mv, _) = parse_move(7, "g4-e4").unwrap();
    assert!(game.play(&r, mv).is_err(), "defenders are to move");
    let (mv, _) = parse_move(7, "d4-c4").unwrap();
    game.play(&r, mv).unwrap();
    let (mv, _) = parse_move(7, "b5-c5").unwrap();
    game.play(&r, mv).unwrap();
    assert_eq!(
        played_text(7, &game.history()[2]),
        "b5-c5xd5",
        "{}",
        game.position().diagram(&r, &[])
    );
}

#[test]
fn position_records_round_trip_in_every_ruleset() {
    for id in BUILTIN_IDS {
        let rs = Ruleset::builtin(id);
        with_board!(&rs, B, r => {
            let start = Position::<B>::start(&r);
            let text = position_record(&r, &start);
            let back = position_from_record(&r, &text, start.to_move()).unwrap();
            assert_eq!(back, start, "{id}: {text}");
        });
    }
    let r = rules("brandubh");
    assert_eq!(
        position_record(&r, &Position::start(&r)),
        "/3t3/3t3/3T3/ttTKTtt/3T3/3t3/3t3/"
    );
}

/// After the king's capture the game's board, as a record or a diagram, has no king (the
/// position keeps his square), and that record is no position to play on.
#[test]
fn a_captured_king_is_off_the_games_board_and_its_record_reads_as_no_position() {
    let r = rules("brandubh");
    let pos = position_from_record(&r, "/4T2/7/7/7/t6/1tKt3/2t4/", Side::Attackers).unwrap();
    let mut game = Game::from_position(&r, pos);
    assert_eq!(board_record(&r, &game), position_record(&r, &pos));
    assert_eq!(game.board(), pos.pieces());
    play_text(&r, &mut game, "a5-c5").unwrap();
    assert_eq!(game.outcome().map(|o| o.reason), Some(Reason::KingCaptured));
    let c6 = parse_square(7, "c6").unwrap();
    assert_eq!(game.king_taken(), Some(c6));
    assert!(game.board().iter().all(|&(_, p)| p != Piece::King));
    let record = board_record(&r, &game);
    assert_eq!(record, "/4T2/7/7/7/2t4/1t1t3/2t4/");
    assert!(!game.diagram(&r, &[]).contains('K'), "{}", game.diagram(&r, &[]));
    for side in [Side::Attackers, Side::Defenders] {
        let e = position_from_record(&r, &record, side).unwrap_err().to_string();
        assert!(e.contains("found none"), "{e}");
    }
    // Taking the capture back puts him on the board again.
    assert!(game.undo(&r));
    assert_eq!(game.king_taken(), None);
    assert_eq!(board_record(&r, &game), "/4T2/7/7/7/t6/1tKt3/2t4/");
}

#[test]
fn game_records_round_trip() {
    let r = rules("hnefatafl");
    let (_, _) = random_game(&r, 5, Some(60));
    // Play a real game and write it out.
    let mut game = Game::new(&r).with_ply_limit(Some(120));
    let mut i = 0u64;
    while game.outcome().is_none() {
        let moves = game.moves(&r);
        let mv = moves[(game_seed(9, i) % moves.len() as u64) as usize];
        game.play(&r, mv).unwrap();
        i += 1;
    }
    let rec = GameRecord::from_game(&r, &game);
    let text = rec.to_text();
    assert!(text.starts_with("[Rules \"hnefatafl\"]"), "{text}");
    let parsed = GameRecord::parse(&text).unwrap();
    assert_eq!(parsed, rec);
    let replayed = parsed.replay(&r).unwrap();
    assert_eq!(replayed.position(), game.position());
    assert_eq!(replayed.outcome(), game.outcome());
    assert_eq!(replayed.history(), game.history());
}

#[test]
fn game_records_from_a_position() {
    let r = rules("brandubh");
    let text = "[Rules \"brandubh\"]\n[Position \"/7/7/7/3K3/7/7/7/\"]\n[ToMove \"defenders\"]\n1. d4-d7 \n";
    let rec = GameRecord::parse(text).unwrap();
    let game = rec.replay(&r).unwrap();
    assert_eq!(game.ply(), 1);
    // d7 is an edge square, not a corner: no escape; but the attackers, who have no pieces,
    // cannot move, and a side with no move loses.
    assert_eq!(
        game.outcome(),
        Some(Outcome::win(Side::Defenders, Reason::NoMoves))
    );
}

#[test]
fn bad_inputs_are_refused_with_an_error() {
    let r = rules("brandubh");
    let mut checked = 0;
    for line in include_str!("data/bad-inputs.txt").lines() {
        if line.starts_with('#') || line.trim().is_empty() && !line.contains('\t') {
            continue;
        }
        let (kind, text) = line.split_once('\t').unwrap_or((line, ""));
        let text = text.replace("\\n", "\n");
        let failed = match kind {
            "move" => parse_move(11, &text).is_err(),
            "record" => position_from_record(&r, &text, Side::Attackers).is_err(),
            "game" => GameRecord::parse(&text).and_then(|g| g.replay(&r)).is_err(),
            other => panic!("unknown kind {other}"),
        };
        assert!(failed, "{kind} `{text}` should be refused");
        checked += 1;
    }
    assert!(checked >= 35, "{checked}");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(500))]

    #[test]
    fn parsers_never_panic(text in "\\PC{0,40}") {
        let r = rules("brandubh");
        let _ = parse_move(11, &text);
        let _ = position_from_record(&r, &text, Side::Attackers);
        let _ = GameRecord::parse(&text).map(|g| g.replay(&r));
        let _ = Ruleset::from_toml(&text, "fuzz.toml");
        let _ = parse_diagram(7, &text);
    }

    #[test]
    fn near_miss_records_never_panic(cut in 0usize..40, extra in "[tTK0-9/]{0,6}") {
        let r = rules("brandubh");
        let good = "/3t3/3t3/3T3/ttTKTtt/3T3/3t3/3t3/";
        let text = format!("{}{}{}", &good[..cut.min(good.len())], extra, &good[cut.min(good.len())..]);
        let _ = position_from_record(&r, &text, Side::Defenders);
    }
}

#[test]
fn a_tag_pushed_with_line_breaks_or_at_any_length_stays_one_line() {
    let mut rec = GameRecord::default();
    rec.push_tag("Stopped", "it crashed:\npanicked at \"x\"\r\n\tnote");
    rec.push_tag("Long", &"y".repeat(5000));
    let text = rec.to_text();
    assert_eq!(text.lines().count(), 2, "{text}");
    let back = GameRecord::parse(&text).unwrap();
    assert_eq!(
        back.tag("Stopped"),
        Some(r#"it crashed:\npanicked at "x"\r\n\tnote"#),
        "escaped, as a terminal shows it"
    );
    let long = back.tag("Long").unwrap();
    assert_eq!(
        long.chars().count(),
        GameRecord::MAX_TAG_VALUE + 1,
        "cut and marked"
    );
    assert!(long.ends_with("y…"));
}
