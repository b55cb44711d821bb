//! Opening suites built into the program: the balanced start positions committed under
//! `checkpoints/openings/` (made by `checkpoints/make-openings.sh`), one per board the project
//! measures strength on. A ladder or config names them as `suite`, which picks the one made for
//! the rules in play, so that a run measures itself the way the project measures players
//! without depending on the directory it runs in.

use tafl_engine::{formats::OpeningSuite, BitSet, Position, Rules};

/// The name that means "the built-in suite for the rules in play".
pub const BUILT_IN: &str = "suite";

/// The built-in suites: (ruleset id, the suite file's text).
const SUITES: &[(&str, &str)] = &[
    (
        "brandubh",
        include_str!("../../checkpoints/openings/brandubh.txt"),
    ),
    ("tablut", include_str!("../../checkpoints/openings/tablut.txt")),
    (
        "hnefatafl",
        include_str!("../../checkpoints/openings/hnefatafl.txt"),
    ),
    (
        "copenhagen",
        include_str!("../../checkpoints/openings/copenhagen.txt"),
    ),
];

/// The rulesets that have a built-in suite.
pub fn built_in_rules() -> impl Iterator<Item = &'static str> {
    SUITES.iter().map(|(id, _)| *id)
}

/// The built-in suite made for ruleset `id`, if there is one.
pub fn built_in(id: &str) -> Option<Result<OpeningSuite, String>> {
    SUITES.iter().find(|(r, _)| *r == id).map(|(r, text)| {
        OpeningSuite::parse(text).map_err(|e| format!("the built-in opening suite of `{r}`: {e}"))
    })
}

/// The start positions of the suite `name` under `rules`, checked against them: [`BUILT_IN`]
/// for the built-in one of the rules (the error says which rules have one), else a suite file's
/// path (read from the directory the process runs in).
pub fn positions<B: BitSet>(name: &str, rules: &Rules<B>) -> Result<Vec<Position<B>>, String> {
    let id = rules.ruleset.id();
    let suite = if name == BUILT_IN {
        built_in(id).unwrap_or_else(|| {
            Err(format!(
                "rules `{id}` have no built-in opening suite (there is one for {}); name a suite file made by `tafl openings`",
                built_in_rules().collect::<Vec<_>>().join(", ")
            ))
        })?
    } else {
        OpeningSuite::load(std::path::Path::new(name))?
    };
    suite.positions(rules)
}

#[cfg(test)]
mod tests {
    use super::*;
    use tafl_engine::Ruleset;

    #[test]
    fn every_built_in_suite_reads_under_its_rules_and_only_there() {
        for id in built_in_rules() {
            let rules = Rules::<u128>::new(&Ruleset::builtin(id)).unwrap();
            let p = positions(BUILT_IN, &rules).unwrap();
            assert!(p.len() >= 20, "{id}: {} positions", p.len());
        }
        let rules = Rules::<u128>::new(&Ruleset::builtin("tablut")).unwrap();
        assert!(positions("checkpoints-that-do-not-exist.txt", &rules).is_err());
        // A ruleset without a suite says which ones have one.
        let rules = Rules::<u128>::new(&Ruleset::builtin("fetlar")).unwrap();
        let e = positions(BUILT_IN, &rules).unwrap_err();
        assert!(
            e.contains("no built-in opening suite") && e.contains("brandubh"),
            "{e}"
        );
        // A suite made for other rules is refused, built in or not.
        let brandubh = Rules::<u128>::new(&Ruleset::builtin("brandubh")).unwrap();
        let e = built_in("tablut")
            .unwrap()
            .unwrap()
            .positions(&brandubh)
            .unwrap_err();
        assert!(e.contains("made for rules `tablut`"), "{e}");
    }
}
