//! Errors for everything the engine reads from outside.

use thiserror::Error;

/// Text that could not be read as a move, square, position or record. The message says why.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("{message}")]
pub struct ParseError {
    message: String,
}

impl ParseError {
    /// An error with this explanation.
    pub fn new(message: impl Into<String>) -> Self {
        ParseError {
            message: message.into(),
        }
    }
    /// The same error with a location (`line 3`, `move 12`) in front.
    pub fn at(self, place: impl std::fmt::Display) -> Self {
        ParseError {
            message: format!("{place}: {}", self.message),
        }
    }
}

/// A ruleset file that could not be loaded: names the file and what is wrong in it.
#[derive(Debug, Clone, Error)]
#[error("rules file `{file}`: {message}")]
pub struct RulesError {
    /// The file (or built-in id) the rules came from.
    pub file: String,
    /// What is wrong, naming the field and the allowed values.
    pub message: String,
}

/// A move that the rules do not allow in this position.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("illegal move {text}: {reason}")]
pub struct IllegalMove {
    /// The move as text.
    pub text: String,
    /// Why it is refused.
    pub reason: String,
}
