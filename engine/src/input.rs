//! Bounds on what is read from outside: files are read up to a size limit, lines up to a
//! length limit, and input quoted in a message is cut to a few dozen characters with its
//! control characters escaped, so that neither `/dev/zero` nor a file of garbage can fill the
//! memory, hang a command or flood the terminal.

use std::io::{BufRead, Read};
use std::path::Path;

/// The most that is read of a text file: rules, configs, levels, game records, run state,
/// manifests (16 MiB, far beyond any real one).
pub const TEXT_LIMIT: u64 = 16 << 20;

/// The most that is read of one line of a protocol or of the terminal (64 KiB).
pub const LINE_LIMIT: usize = 64 << 10;

/// The characters of outside input that a message quotes; longer input is cut with `…`.
pub const QUOTE_LIMIT: usize = 80;

/// A size in bytes as people read it: `16 MiB`, `64 KiB`, `100 bytes`.
pub fn size_text(bytes: u64) -> String {
    match bytes {
        b if b >= 1 << 30 && b.is_multiple_of(1 << 30) => format!("{} GiB", b >> 30),
        b if b >= 1 << 20 && b.is_multiple_of(1 << 20) => format!("{} MiB", b >> 20),
        b if b >= 1 << 10 && b.is_multiple_of(1 << 10) => format!("{} KiB", b >> 10),
        b => format!("{b} bytes"),
    }
}

/// Reads at most `limit` bytes of the file at `path`: a larger file (or an endless one such as
/// `/dev/zero`) is refused without reading more than `limit + 1` bytes. The error does not
/// name the file; callers put it in front.
pub fn read_limited(path: &Path, limit: u64) -> Result<Vec<u8>, String> {
    let file = std::fs::File::open(path).map_err(|e| format!("cannot read it: {e}"))?;
    let meta = file.metadata().map_err(|e| format!("cannot read it: {e}"))?;
    if meta.is_dir() {
        return Err("cannot read it: it is a folder".into());
    }
    let too_large = || {
        format!(
            "larger than {}, the most read of such a file; not read",
            size_text(limit)
        )
    };
    if meta.is_file() && meta.len() > limit {
        return Err(too_large());
    }
    let mut bytes = Vec::new();
    file.take(limit.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(|e| format!("cannot read it: {e}"))?;
    if bytes.len() as u64 > limit {
        return Err(too_large());
    }
    Ok(bytes)
}

/// Reads a UTF-8 text file of at most `limit` bytes (see [`read_limited`]).
pub fn read_text_limited(path: &Path, limit: u64) -> Result<String, String> {
    let bytes = read_limited(path, limit)?;
    String::from_utf8(bytes).map_err(|e| {
        format!(
            "not UTF-8 text (byte {} is not part of a UTF-8 character)",
            e.utf8_error().valid_up_to()
        )
    })
}

/// Reads a UTF-8 text file of at most [`TEXT_LIMIT`] bytes.
pub fn read_text(path: &Path) -> Result<String, String> {
    read_text_limited(path, TEXT_LIMIT)
}

/// Outside input as a message quotes it: control characters (terminal escapes, carriage
/// returns, newlines) escaped as `\u{1b}`, `\r`, `\n`, and cut after [`QUOTE_LIMIT`]
/// characters with `…`.
pub fn quote(text: &str) -> String {
    let mut out = String::new();
    for (i, c) in text.chars().enumerate() {
        if i == QUOTE_LIMIT {
            out.push('…');
            break;
        }
        push_escaped(&mut out, c);
    }
    out
}

/// A number from outside input as a message quotes it: short whatever its size (`1e308`,
/// not its 309 digits).
pub fn quote_number(v: f64) -> String {
    if v != 0.0 && v.is_finite() && !(1e-6..1e9).contains(&v.abs()) {
        quote(&format!("{v:e}"))
    } else {
        quote(&v.to_string())
    }
}

fn push_escaped(out: &mut String, c: char) {
    if c.is_control() {
        out.extend(c.escape_default());
    } else {
        out.push(c);
    }
}

/// Text for a terminal or a one-line protocol: control characters escaped as [`quote`] does,
/// newlines kept when `keep_newlines`, and each line cut after `max_line` characters.
pub fn printable(text: &str, keep_newlines: bool, max_line: usize) -> String {
    let mut out = String::new();
    let mut column = 0;
    for c in text.chars() {
        if c == '\n' && keep_newlines {
            out.push('\n');
            column = 0;
            continue;
        }
        if column == max_line {
            out.push('…');
        }
        column += 1;
        if column <= max_line {
            push_escaped(&mut out, c);
        }
    }
    out
}

/// What [`read_line`] found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Line {
    /// A line's bytes, without its `\n`.
    Bytes(Vec<u8>),
    /// A line longer than the limit: its bytes were skipped up to the next `\n`.
    TooLong(u64),
    /// The end of the input.
    End,
}

/// Reads one line of at most `limit` bytes from `input`. A longer line is read to its end
/// but not kept (memory stays bounded whatever comes in) and reported as [`Line::TooLong`].
pub fn read_line(input: &mut impl BufRead, limit: usize) -> std::io::Result<Line> {
    read_line_ended(input, limit).map(|(line, _)| line)
}

/// [`read_line`], saying too whether the line ended with its `\n`: `false` for a last line
/// that the end of the input cut short (a connection closed mid-line), and for [`Line::End`].
pub fn read_line_ended(input: &mut impl BufRead, limit: usize) -> std::io::Result<(Line, bool)> {
    let mut kept = Vec::new();
    let mut total: u64 = 0;
    let mut any = false;
    let mut ended = false;
    loop {
        let chunk = match input.fill_buf() {
            Ok(c) => c,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if chunk.is_empty() {
            break;
        }
        any = true;
        let (part, newline) = match chunk.iter().position(|&b| b == b'\n') {
            Some(i) => (&chunk[..i], Some(i)),
            None => (chunk, None),
        };
        if kept.len() + part.len() <= limit {
            kept.extend_from_slice(part);
        } else {
            kept.clear();
            kept.shrink_to_fit();
        }
        total += part.len() as u64;
        let used = newline.map_or(part.len(), |i| i + 1);
        input.consume(used);
        if newline.is_some() {
            ended = true;
            break;
        }
    }
    if !any {
        return Ok((Line::End, false));
    }
    if total > limit as u64 {
        return Ok((Line::TooLong(total), ended));
    }
    if kept.last() == Some(&b'\r') {
        kept.pop();
    }
    Ok((Line::Bytes(kept), ended))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temp(name: &str) -> std::path::PathBuf {
        let d = std::env::temp_dir().join(format!("tafl-input-{}-{name}", std::process::id()));
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    #[test]
    fn files_over_the_limit_and_endless_files_are_refused() {
        let d = temp("files");
        let p = d.join("big");
        std::fs::write(&p, vec![b'x'; 2000]).unwrap();
        assert_eq!(read_limited(&p, 2000).unwrap().len(), 2000);
        let e = read_limited(&p, 1999).unwrap_err();
        assert!(e.contains("larger than 1999 bytes"), "{e}");
        let e = read_text_limited(Path::new("/dev/zero"), 1 << 20).unwrap_err();
        assert!(e.contains("larger than 1 MiB"), "{e}");
        let e = read_text(&d).unwrap_err();
        assert!(e.contains("folder"), "{e}");
        std::fs::write(&p, b"ok\xff").unwrap();
        assert!(read_text(&p).unwrap_err().contains("byte 2"));
        let _ = std::fs::remove_dir_all(&d);
    }

    #[test]
    fn quotes_are_cut_and_escaped() {
        assert_eq!(quote("e1-e4"), "e1-e4");
        assert_eq!(quote("a\u{1b}[2Jb\nc"), "a\\u{1b}[2Jb\\nc");
        let long = "x".repeat(10_000);
        let q = quote(&long);
        assert_eq!(q.chars().count(), QUOTE_LIMIT + 1);
        assert!(q.ends_with('…'));
        assert_eq!(printable("ab\ncd\u{7}", true, 80), "ab\ncd\\u{7}");
        assert_eq!(printable("abcdef\nxy", true, 3), "abc…\nxy");
        assert_eq!(printable("a\nb", false, 80), "a\\nb");
    }

    #[test]
    fn lines_are_bounded() {
        let mut input = std::io::Cursor::new(b"short\r\nxxxxxxxxxxxx\nlast".to_vec());
        assert_eq!(read_line(&mut input, 8).unwrap(), Line::Bytes(b"short".to_vec()));
        assert_eq!(read_line(&mut input, 8).unwrap(), Line::TooLong(12));
        assert_eq!(read_line(&mut input, 8).unwrap(), Line::Bytes(b"last".to_vec()));
        assert_eq!(read_line(&mut input, 8).unwrap(), Line::End);
        // An empty line is a line, not the end.
        let mut input = std::io::Cursor::new(b"\n".to_vec());
        assert_eq!(read_line(&mut input, 8).unwrap(), Line::Bytes(vec![]));
        assert_eq!(read_line(&mut input, 8).unwrap(), Line::End);
        // A last line cut short is told apart.
        let mut cut = std::io::Cursor::new(b"whole\ngenerate_mo".to_vec());
        assert_eq!(
            read_line_ended(&mut cut, 80).unwrap(),
            (Line::Bytes(b"whole".to_vec()), true)
        );
        assert_eq!(
            read_line_ended(&mut cut, 80).unwrap(),
            (Line::Bytes(b"generate_mo".to_vec()), false)
        );
        assert_eq!(read_line_ended(&mut cut, 80).unwrap(), (Line::End, false));
    }
}
