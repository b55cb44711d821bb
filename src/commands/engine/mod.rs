//! `tafl engine`: our AI as an external engine of another program, one module per protocol.

pub mod htp;
pub mod otep;
pub mod server_bot;
