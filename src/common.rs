//! Helpers every command shares: rulesets and side names on the command line and the bounded
//! reading of stdin's lines that the engine protocols use; the worker pool and progress bars
//! come from the library ([`tafl_lab::work`]).

pub use tafl_lab::work::{pool, progress_bar};

/// A ruleset named on the command line: the text as written (for `rerun:` lines) and the
/// ruleset it loads, validated when the arguments are parsed.
#[derive(Clone, Debug)]
pub struct RulesArg {
    /// The id or path as the user wrote it.
    pub text: String,
    /// The validated ruleset.
    pub ruleset: tafl_engine::Ruleset,
}

/// Clap's value parser for ruleset arguments: a built-in id, a rules file (TOML, an OpenTafl
/// rules string or game record); the error names the file and what is wrong.
pub fn parse_rules(text: &str) -> Result<RulesArg, String> {
    let ruleset = tafl_engine::Ruleset::load(text).map_err(|e| e.to_string())?;
    Ok(RulesArg {
        text: text.to_string(),
        ruleset,
    })
}

/// Parses `attackers` or `defenders`.
pub fn parse_side(text: &str, flag: &str) -> Result<tafl_engine::Side, String> {
    match text {
        "attackers" | "a" => Ok(tafl_engine::Side::Attackers),
        "defenders" | "d" => Ok(tafl_engine::Side::Defenders),
        other => Err(format!(
            "{flag}: `{other}` is not a side; allowed values: attackers, defenders"
        )),
    }
}

/// Feeds stdin to `handle` line by line until it returns `true` (the protocol's goodbye) or
/// the input ends. Bad bytes become U+FFFD and then a named error of the protocol, never the
/// end of the engine.
///
/// A line longer than [`tafl_engine::input::LINE_LIMIT`] is not kept: it reaches `handle` as the unknown command
/// `line-too-long`, which the protocol answers with its error, and stderr says why.
pub fn each_line(mut handle: impl FnMut(&str) -> Result<bool, String>) -> Result<(), String> {
    use tafl_engine::input::{read_line, Line, LINE_LIMIT};
    let mut input = std::io::stdin().lock();
    let mut number = 0u64;
    loop {
        number += 1;
        let line = match read_line(&mut input, LINE_LIMIT).map_err(|e| format!("reading stdin: {e}"))? {
            Line::End => return Ok(()),
            Line::Bytes(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
            Line::TooLong(bytes) => {
                eprintln!(
                    "warning: stdin line {number}: {bytes} bytes, more than the {LINE_LIMIT} read of a line; answered as the unknown command `line-too-long`"
                );
                "line-too-long".to_string()
            }
        };
        if handle(&line)? {
            return Ok(());
        }
    }
}
