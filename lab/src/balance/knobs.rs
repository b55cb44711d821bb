//! The `--set knob=value` parser: rule changes for a before/after study.

use tafl_engine::Ruleset;

/// One rule change from the command line, `knob=value`.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct KnobSetting {
    /// The knob's name as in the rules files (`repetition`).
    pub knob: String,
    /// The value as in the rules files (`defenders_lose`).
    pub value: String,
}

impl std::fmt::Display for KnobSetting {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}={}", self.knob, self.value)
    }
}

/// Parses the text of one `--set`; names and values are checked against a ruleset by [`apply`].
pub fn parse_set(text: &str) -> Result<KnobSetting, String> {
    let Some((knob, value)) = text.split_once('=') else {
        return Err(format!(
            "--set `{text}`: expected KNOB=VALUE, for example `--set repetition=defenders_lose`"
        ));
    };
    let (knob, value) = (knob.trim(), value.trim());
    if knob.is_empty() || value.is_empty() {
        return Err(format!(
            "--set `{text}`: both the knob and the value are needed (KNOB=VALUE)"
        ));
    }
    Ok(KnobSetting {
        knob: knob.to_string(),
        value: value.to_string(),
    })
}

/// Parses every `--set`, refusing a knob set twice; the result is sorted by knob so that the
/// order of the flags changes neither the labels nor the games' seeds.
pub fn parse_sets(texts: &[String]) -> Result<Vec<KnobSetting>, String> {
    let mut sets = texts
        .iter()
        .map(|t| parse_set(t))
        .collect::<Result<Vec<_>, _>>()?;
    sets.sort();
    for pair in sets.windows(2) {
        if pair[0].knob == pair[1].knob {
            return Err(format!(
                "--set: knob `{}` is set twice (`{}` and `{}`); set each knob once",
                pair[0].knob, pair[0], pair[1]
            ));
        }
    }
    Ok(sets)
}

/// The ruleset with the changes applied; the error names the `--set` and what is allowed.
pub fn apply(base: &Ruleset, sets: &[KnobSetting]) -> Result<Ruleset, String> {
    let mut rs = base.clone();
    for s in sets {
        rs.set_knob(&s.knob, &s.value)
            .map_err(|e| format!("--set {s} (rules `{}`): {e}", base.id()))?;
    }
    Ok(rs)
}

/// The changes as one label, `encirclement=yes, repetition=defenders_lose` (empty: none).
pub fn label(sets: &[KnobSetting]) -> String {
    sets.iter().map(|s| s.to_string()).collect::<Vec<_>>().join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn parses_and_sorts_settings() {
        let sets = parse_sets(&strings(&["repetition=defenders_lose", " encirclement = yes "])).unwrap();
        assert_eq!(label(&sets), "encirclement=yes, repetition=defenders_lose");
        let rs = apply(&Ruleset::builtin("hnefatafl"), &sets).unwrap();
        assert_ne!(rs, Ruleset::builtin("hnefatafl"));
        assert_eq!(rs.id(), "hnefatafl");
    }

    #[test]
    fn malformed_settings_are_clear_errors() {
        for bad in ["repetition", "=yes", "encirclement=", ""] {
            let e = parse_set(bad).unwrap_err();
            assert!(e.contains("--set") && e.contains("KNOB=VALUE"), "{bad}: {e}");
        }
        let e = parse_sets(&strings(&["encirclement=yes", "encirclement=no"])).unwrap_err();
        assert!(e.contains("set twice"), "{e}");
    }

    #[test]
    fn bad_knobs_and_values_name_what_is_allowed() {
        let base = Ruleset::builtin("hnefatafl");
        let e = apply(&base, &parse_sets(&strings(&["knights=yes"])).unwrap()).unwrap_err();
        assert!(
            e.contains("--set knights=yes") && e.contains("unknown knob") && e.contains("repetition"),
            "{e}"
        );
        let e = apply(&base, &parse_sets(&strings(&["repetition=sometimes"])).unwrap()).unwrap_err();
        assert!(e.contains("`sometimes`") && e.contains("defenders_lose"), "{e}");
    }
}
