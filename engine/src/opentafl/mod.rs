//! OpenTafl interchange: rules strings (`rules_string`) and `.otg` game records with their
//! move notation (`otg`), as specified in OpenTafl's `opentafl-notation-spec.txt`.

mod otg;
mod rules_string;

pub use otg::{otn_move_text, OtgRecord};
pub use rules_string::{ruleset_from_opentafl, ruleset_from_text, ruleset_to_opentafl};
