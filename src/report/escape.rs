//! Making user-supplied text (labels, paths, chain names) safe in the formats that render it:
//! Markdown cells and the terminal. HTML needs none here: its templates (`maud`) escape what
//! they are given; CSV fields are quoted by the `csv` crate.

/// Text made safe inside a Markdown table cell: pipes would split the cell, line breaks would
/// end the table, and HTML tags would be rendered by most forums.
pub fn markdown_cell(text: &str) -> String {
    // Other control characters would reach the terminal of whoever prints the export.
    terminal(
        &text
            .replace('\\', "\\\\")
            .replace('|', "\\|")
            .replace('<', "&lt;")
            .replace('>', "&gt;")
            .replace(['\n', '\r'], " "),
    )
}

/// Text made safe for a terminal: control characters (escape sequences that would recolour,
/// move the cursor or retitle the window, line breaks that would fake rows) are shown as
/// `\u{1b}`-style escapes instead of being sent raw.
pub fn terminal(text: &str) -> String {
    if !text.chars().any(char::is_control) {
        return text.to_string();
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if c.is_control() {
            out.extend(c.escape_unicode());
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each escape, what it is given and what it must return.
    #[allow(clippy::type_complexity)]
    const CASES: &[(&str, fn(&str) -> String, &str, &str)] = &[
        (
            "terminal",
            terminal,
            "usb \u{1b}[31mred",
            "usb \\u{1b}[31mred",
        ),
        (
            "terminal",
            terminal,
            "a\nb\u{9b}c\u{7f}",
            "a\\u{a}b\\u{9b}c\\u{7f}",
        ),
        ("terminal", terminal, "plain — ünïcode", "plain — ünïcode"),
        ("markdown", markdown_cell, "a|b", "a\\|b"),
        (
            "markdown",
            markdown_cell,
            "<script>x</script>",
            "&lt;script&gt;x&lt;/script&gt;",
        ),
        ("markdown", markdown_cell, "one\ntwo", "one two"),
        ("markdown", markdown_cell, "a\u{1b}[2Jb", "a\\u{1b}[2Jb"),
    ];

    #[test]
    fn user_text_cannot_break_out_of_its_format() {
        for (name, escape, input, expected) in CASES {
            assert_eq!(escape(input), *expected, "{name} escape of {input:?}");
        }
    }
}
