//! The game page, embedded in the binary: no files are read at run time and nothing comes from
//! a CDN.

use axum::http::header;
use axum::response::IntoResponse;

const INDEX: &str = include_str!("../../../web/index.html");
const SCRIPT: &str = include_str!("../../../web/app.js");
const STYLE: &str = include_str!("../../../web/style.css");

/// `GET /`: the page.
pub async fn index() -> impl IntoResponse {
    ([(header::CONTENT_TYPE, "text/html; charset=utf-8")], INDEX)
}

/// `GET /app.js`: the page's script.
pub async fn script() -> impl IntoResponse {
    ([(header::CONTENT_TYPE, "text/javascript; charset=utf-8")], SCRIPT)
}

/// `GET /style.css`: the page's style sheet.
pub async fn style() -> impl IntoResponse {
    ([(header::CONTENT_TYPE, "text/css; charset=utf-8")], STYLE)
}
