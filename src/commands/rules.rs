//! `tafl rules`: a ruleset's rules panel, rules file or OpenTafl rules string.

use crate::common::RulesArg;
use tafl_engine::{formats::ruleset_to_opentafl, rules::rules_panel};

/// The arguments of `tafl rules`.
#[derive(clap::Args, Debug)]
pub struct RulesArgs {
    /// Built-in ruleset id (brandubh, tablut, hnefatafl, copenhagen, ...) or a rules file:
    /// TOML, an OpenTafl rules string, or an OpenTafl game record (.otg).
    #[arg(value_parser = crate::common::parse_rules)]
    rules: RulesArg,
    /// Print the rules file (TOML) instead of the summary.
    #[arg(long)]
    toml: bool,
    /// Print the OpenTafl rules string instead of the summary.
    #[arg(long, conflicts_with = "toml")]
    opentafl: bool,
}

impl RulesArgs {
    /// Runs `tafl rules`.
    pub fn run(self) -> Result<(), String> {
        let RulesArgs {
            rules,
            toml,
            opentafl,
        } = self;
        let rs = rules.ruleset;
        let text = if opentafl {
            format!("{}\n", ruleset_to_opentafl(&rs))
        } else if toml {
            rs.to_toml()
        } else {
            rules_panel(&rs)
        };
        // A name from a file may hold terminal escapes: they are shown, not obeyed.
        print!("{}", tafl_engine::input::printable(&text, true, 4096));
        Ok(())
    }
}
