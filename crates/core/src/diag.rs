//! Input errors that point into a file: `path:line:col`, what was wrong, what was expected.
//!
//! Every problem with a spec or a scenario becomes a [`Diagnostic`]. It renders as one line
//! (`Display`) or as an annotated source snippet ([`Diagnostic::render`], annotate-snippets).

use annotate_snippets::{AnnotationKind, Group, Level, Renderer, Snippet};
use std::ops::Range;
use std::sync::Arc;

/// One file's text, shared by every diagnostic that points into it (cheap to clone).
#[derive(Debug, Clone)]
pub struct Source(Arc<SourceData>);

/// What a [`Source`] holds; reached through `Deref`, so `source.path` and `source.text` read.
#[derive(Debug)]
pub struct SourceData {
    /// The path as the user gave it, with `/` separators.
    pub path: String,
    pub text: Arc<str>,
    /// Byte offset of the start of each line, so positions are found in log time.
    line_starts: Vec<usize>,
}

impl std::ops::Deref for Source {
    type Target = SourceData;

    fn deref(&self) -> &SourceData {
        &self.0
    }
}

impl Source {
    pub fn new(path: impl Into<String>, text: impl Into<Arc<str>>) -> Self {
        let text: Arc<str> = text.into();
        let line_starts = std::iter::once(0)
            .chain(text.match_indices('\n').map(|(i, _)| i + 1))
            .collect();
        Source(Arc::new(SourceData {
            path: path.into().replace('\\', "/"),
            text,
            line_starts,
        }))
    }

    /// The 1-based line and column (in characters) of byte offset `at`.
    pub fn line_col(&self, at: usize) -> (usize, usize) {
        let mut at = at.min(self.text.len());
        while !self.text.is_char_boundary(at) {
            at -= 1;
        }
        let line = self.line_starts.partition_point(|&start| start <= at);
        let start = self.line_starts[line - 1];
        (line, self.text[start..at].chars().count() + 1)
    }
}

/// A problem in an input file. Displays as one line: `path:line:col: message (expected …)`.
#[derive(Debug, Clone, thiserror::Error)]
#[error("{}", self.one_line())]
pub struct Diagnostic {
    /// The file the problem is in.
    pub file: Source,
    /// Byte range in the file; `None` when the problem is the file as a whole.
    pub span: Option<Range<usize>>,
    /// What is wrong, e.g. "cell `G1` is off the 6×6 board".
    pub message: String,
    /// What was expected instead, e.g. "a row letter A–F and a column number 1–6".
    pub expected: Option<String>,
}

impl Diagnostic {
    pub fn new(source: &Source, span: Option<Range<usize>>, message: impl Into<String>) -> Self {
        Diagnostic {
            file: source.clone(),
            span,
            message: message.into(),
            expected: None,
        }
    }

    /// Adds what was expected.
    pub fn expected(mut self, expected: impl Into<String>) -> Self {
        self.expected = Some(expected.into());
        self
    }

    /// `(line, col)`, 1-based, of the start of the span (1:1 when there is none).
    pub fn line_col(&self) -> (usize, usize) {
        self.span
            .as_ref()
            .map_or((1, 1), |s| self.file.line_col(s.start))
    }

    /// `path:line:col`, or just `path` when the problem is the file as a whole.
    pub fn location(&self) -> String {
        if self.span.is_none() {
            return self.file.path.clone();
        }
        let (l, c) = self.line_col();
        format!("{}:{l}:{c}", self.file.path)
    }

    /// The diagnostic as an annotated snippet of the file; `color` adds ANSI styles.
    pub fn render(&self, color: bool) -> String {
        let renderer = if color {
            Renderer::styled()
        } else {
            Renderer::plain()
        };
        let title = format!("{}: {}", self.location(), self.message);
        let label = self.expected.as_ref().map(|e| format!("expected {e}"));
        let mut group = Group::with_title(Level::ERROR.primary_title(title));
        if let Some(span) = self.span.clone() {
            let span = clamp_span(&self.file.text, span);
            let mut ann = AnnotationKind::Primary.span(span);
            if let Some(l) = &label {
                ann = ann.label(l);
            }
            group = group.element(
                Snippet::source(&*self.file.text)
                    .path(&self.file.path)
                    .fold(true)
                    .annotation(ann),
            );
        } else if let Some(l) = &label {
            group = group.element(Level::NOTE.message(l));
        }
        renderer.render(&[group]).to_string()
    }
}

/// Keeps a span inside the text and on character boundaries, so rendering never panics.
fn clamp_span(text: &str, span: Range<usize>) -> Range<usize> {
    let mut start = span.start.min(text.len());
    let mut end = span.end.clamp(start, text.len());
    while !text.is_char_boundary(start) {
        start -= 1;
    }
    while !text.is_char_boundary(end) {
        end += 1;
    }
    start..end
}

impl Diagnostic {
    fn one_line(&self) -> String {
        match &self.expected {
            Some(e) => format!("{}: {} (expected {e})", self.location(), self.message),
            None => format!("{}: {}", self.location(), self.message),
        }
    }
}

/// Turns a toml parse or schema error into a diagnostic at its span.
pub fn from_toml(source: &Source, err: &toml::de::Error) -> Diagnostic {
    let message = err.message().trim().to_string();
    Diagnostic::new(source, err.span(), message)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_col_counts_from_one() {
        let s = Source::new("a.toml", "x = 1\ny = é2\n");
        assert_eq!(s.line_col(0), (1, 1));
        assert_eq!(s.line_col(6), (2, 1));
        assert_eq!(s.line_col(12), (2, 6));
    }

    #[test]
    fn render_never_panics_on_odd_spans() {
        let s = Source::new("a.toml", "é");
        let d = Diagnostic::new(&s, Some(1..99), "odd").expected("even");
        assert!(d.render(false).contains("a.toml:1:"));
    }
}
