//! What the window tells the person in passing: toasts, and a failed
//! request's words.

use super::*;

impl App {
    /// Shows a toast (an error's is kept for "Show the last error").
    pub(super) fn notice(&mut self, widgets: &mut AppWidgets, notice: Notice) {
        let (Notice::Text(text) | Notice::Undo(text) | Notice::Error(ErrorView { title: text, .. })) = &notice;
        self.seen.toast = Some(text.clone());
        self.seen.toasts += 1;
        if let Notice::Error(view) = &notice {
            self.last_error = Some(view.clone());
        }
        widgets.toasts.show(&notice);
    }

    /// Shows a plain toast.
    pub(super) fn toast(&mut self, widgets: &mut AppWidgets, text: String) {
        self.notice(widgets, Notice::Text(text));
    }

    /// Says why a request failed, in the session's words where it knows
    /// better than the error (a helper that stopped).
    pub(super) fn fail(&mut self, widgets: &mut AppWidgets, err: &gearshift::client::ClientError) {
        let mut view = ErrorView::from_client(err);
        if let Some(words) = self.session.failure_words(err) {
            view = ErrorView { title: words, command: None, lasting: false, ..view };
        }
        self.notice(widgets, Notice::Error(view));
    }
}
