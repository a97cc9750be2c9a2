//! Names and URIs under a namespace, as a server serves another's under it: tools and
//! prompts get `namespace_` in front, URIs `namespace/` after their scheme
//! (`weather://forecast` is `weather://ns/forecast`), the way FastMCP's `mount` names
//! them. A URI without a `scheme://` stays as it is.

/// `name` (a tool's or a prompt's) under `namespace`.
pub fn name_in(namespace: &str, name: &str) -> String {
    format!("{namespace}_{name}")
}

/// The name under `namespace` had before, if `name` is under it.
pub fn name_from(namespace: &str, name: &str) -> Option<String> {
    let rest = name.strip_prefix(namespace)?.strip_prefix('_')?;
    Some(rest.to_owned())
}

/// `uri` (a resource's, or a template's) under `namespace`.
pub fn uri_in(namespace: &str, uri: &str) -> String {
    match uri.split_once("://") {
        Some((scheme, path)) => format!("{scheme}://{namespace}/{path}"),
        None => uri.to_owned(),
    }
}

/// The URI under `namespace` had before, if `uri` is under it (one without a scheme is
/// the same under every namespace).
pub fn uri_from(namespace: &str, uri: &str) -> Option<String> {
    match uri.split_once("://") {
        Some((scheme, path)) => {
            let rest = path.strip_prefix(namespace)?.strip_prefix('/')?;
            Some(format!("{scheme}://{rest}"))
        }
        None => Some(uri.to_owned()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_uris_go_under_a_namespace_and_back() {
        assert_eq!(name_in("weather", "forecast"), "weather_forecast");
        assert_eq!(name_from("weather", "weather_forecast").as_deref(), Some("forecast"));
        assert_eq!(name_from("weather", "weatherforecast"), None);
        assert_eq!(name_from("weather", "news_headlines"), None);
        assert_eq!(uri_in("w", "weather://cities/{city}"), "weather://w/cities/{city}");
        assert_eq!(
            uri_from("w", "weather://w/cities/Oslo").as_deref(),
            Some("weather://cities/Oslo")
        );
        assert_eq!(uri_from("w", "weather://news/x"), None);
        assert_eq!(uri_in("w", "plain"), "plain");
        assert_eq!(uri_from("w", "plain").as_deref(), Some("plain"));
        // Nested: the outer namespace goes outside the inner one.
        assert_eq!(name_in("a", &name_in("b", "t")), "a_b_t");
        assert_eq!(uri_in("a", &uri_in("b", "s://p")), "s://a/b/p");
    }
}
