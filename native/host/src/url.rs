//! A URL cut around its authority (`scheme://user:password@host:port/rest`): enough to show a
//! URL without what it must not show, and to tell one that carries a password.

pub(crate) struct UrlParts<'a> {
    /// Empty when the text has no `://`.
    pub scheme: &'a str,
    /// What the authority holds before `@`, if anything.
    pub user_info: Option<&'a str>,
    /// Host and port.
    pub host: &'a str,
    /// Path, query and fragment.
    pub rest: &'a str,
}

pub(crate) fn parts(url: &str) -> UrlParts<'_> {
    let (scheme, after) = url.split_once("://").unwrap_or(("", url));
    let (authority, rest) = after.split_at(after.find(['/', '?', '#']).unwrap_or(after.len()));
    let (user_info, host) = match authority.rsplit_once('@') {
        Some((user_info, host)) => (Some(user_info), host),
        None => (None, authority),
    };
    UrlParts { scheme, user_info, host, rest }
}

/// `url` with the password of its user part, if it has one, left out (`https://user:***@host/`):
/// what is shown, kept in artifacts or in the store.
pub fn without_password(url: &str) -> String {
    let parts = parts(url);
    match parts.credentials() {
        Some((user, _)) => format!("{}://{user}:***@{}{}", parts.scheme, parts.host, parts.rest),
        None => url.to_owned(),
    }
}

impl UrlParts<'_> {
    /// The user and password of `scheme://user:password@host`, if the URL has a password.
    pub fn credentials(&self) -> Option<(&str, &str)> {
        self.user_info.filter(|_| !self.scheme.is_empty())?.split_once(':')
    }
}
