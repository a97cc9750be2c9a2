//! RFC 6570 URI templates, as used by MCP resource templates.
//!
//! A [`UriTemplate`] is parsed once and can then
//! - [match](UriTemplate::matches) a concrete resource URI, extracting the
//!   percent-decoded value of every variable it binds, and
//! - [expand](UriTemplate::expand) into a URI from variable values.
//!
//! All four levels of RFC 6570 are parsed. Values are plain strings: a
//! variable with the explode modifier (`{/list*}`) treats its value as a
//! comma-separated list when expanding, and matching returns the exploded
//! items joined with `,`. Associative (map) values are not supported.
//!
//! Matching is anchored at both ends, compares literal text exactly and runs
//! in time linear in the URI (the template is compiled into a regular
//! expression once, in [`UriTemplate::parse`]). Its rules:
//! - `{var}` matches one or more characters and never crosses `/`, `?` or
//!   `#`; `{+var}` matches one or more characters of any kind; `{var*}`
//!   crosses `/` (a whole path, as FastMCP's wildcard parameters match).
//!   After a literal `?` (`?q={q}`), `{var}` is the value of a query
//!   parameter the template writes out: it runs to the next `&`, and may be
//!   empty or hold a `/`.
//! - A fragment (`#top`) is not part of the resource a URI names: it is left
//!   out of the match unless the template names one (a literal `#`, `{#var}`).
//! - `{#var}`, `{.var}`, `{/var}` and `{;var}` may be absent from the URI,
//!   because an undefined variable expands to nothing. `{/a,b}` matches at
//!   most one path segment per variable unless a variable is exploded.
//! - Query expressions (`{?a,b}`, `{&c}`) read the query as `name=value` pairs
//!   in any order. Every query variable is optional and parameters the
//!   template does not name are ignored. `{;a}` works the same way on
//!   `;`-separated path parameters.
//! - Where a URI could be split in more than one way, earlier variables take
//!   as few characters as possible.
//! - A variable with a prefix modifier (`{var:3}`) matches at most that many
//!   characters, counted after percent-decoding.
//! - A variable that occurs more than once must match the same value each
//!   time.

use std::borrow::Cow;
use std::collections::btree_map::Entry;
use std::collections::{BTreeMap, HashSet};
use std::fmt;
use std::str::FromStr;

use percent_encoding::{percent_decode_str, utf8_percent_encode, AsciiSet, NON_ALPHANUMERIC};
use regex_automata::meta;
use regex_automata::util::captures::Captures;

/// Characters copied as they are by simple expansion: RFC 3986 `unreserved`.
const UNRESERVED: &AsciiSet = &NON_ALPHANUMERIC.remove(b'-').remove(b'.').remove(b'_').remove(b'~');

/// Characters copied as they are by reserved (`+`) and fragment (`#`)
/// expansion: `unreserved` and `reserved`. `%` stays in the set because
/// [`encode_reserved`] copies only well-formed pct-encoded triplets.
const UNRESERVED_OR_RESERVED: &AsciiSet = &UNRESERVED
    .remove(b':')
    .remove(b'/')
    .remove(b'?')
    .remove(b'#')
    .remove(b'[')
    .remove(b']')
    .remove(b'@')
    .remove(b'!')
    .remove(b'$')
    .remove(b'&')
    .remove(b'\'')
    .remove(b'(')
    .remove(b')')
    .remove(b'*')
    .remove(b'+')
    .remove(b',')
    .remove(b';')
    .remove(b'=');

/// The largest prefix length RFC 6570 allows (`max-length < 10000`).
const MAX_PREFIX_LENGTH: usize = 9999;

/// A parsed RFC 6570 URI template.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UriTemplate {
    source: String,
    parts: Vec<Part>,
    matcher: Matcher,
}

/// Why a URI template could not be parsed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum UriTemplateError {
    /// A `{` has no matching `}`.
    #[error("expression starting at byte {offset} is not closed")]
    UnclosedExpression {
        /// Byte offset of the opening `{`.
        offset: usize,
    },
    /// A `}` appears outside of an expression.
    #[error("unmatched `}}` at byte {offset}")]
    UnmatchedClosingBrace {
        /// Byte offset of the stray `}`.
        offset: usize,
    },
    /// An expression names no variable, as in `{}` or `{?}`.
    #[error("expression at byte {offset} names no variable")]
    EmptyExpression {
        /// Byte offset of the opening `{`.
        offset: usize,
    },
    /// A variable name is not made of letters, digits, `_`, pct-encoded
    /// triplets and inner dots.
    #[error("invalid variable name `{name}`")]
    InvalidVariableName {
        /// The variable specification as written.
        name: String,
    },
    /// An expression starts with an operator RFC 6570 reserves for future use.
    #[error("unsupported operator `{op}`")]
    UnsupportedOperator {
        /// The operator character.
        op: char,
    },
    /// A prefix modifier is not a number from 1 to 9999.
    #[error("invalid prefix length `{length}` for variable `{name}`: expected 1 to 9999")]
    InvalidPrefixLength {
        /// The variable the modifier belongs to.
        name: String,
        /// The prefix length as written.
        length: String,
    },
    /// The template is too large to compile into a matcher.
    #[error("template is too large to match against")]
    TooComplex,
}

impl UriTemplate {
    /// Parses `template`, checking it against the RFC 6570 grammar and
    /// preparing it for matching.
    ///
    /// # Errors
    ///
    /// Returns a [`UriTemplateError`] describing the first syntax error, or
    /// [`UriTemplateError::TooComplex`] for a template too large to match.
    pub fn parse(template: &str) -> Result<Self, UriTemplateError> {
        let parts = parse_parts(template)?;
        let matcher = Matcher::compile(&parts)?;
        Ok(Self {
            source: template.to_owned(),
            parts,
            matcher,
        })
    }

    /// Returns the template text as it was parsed.
    #[must_use]
    pub fn as_str(&self) -> &str {
        &self.source
    }

    /// Returns the names of the template's variables in order of first
    /// appearance, each once.
    pub fn variables(&self) -> impl Iterator<Item = &str> + '_ {
        let mut seen = HashSet::new();
        self.expressions()
            .flat_map(|expression| &expression.variables)
            .map(|variable| variable.name.as_str())
            .filter(move |name| seen.insert(*name))
    }

    /// Returns `true` when the template has no expressions, so it matches and
    /// expands to its own text only.
    #[must_use]
    pub fn is_static(&self) -> bool {
        self.expressions().next().is_none()
    }

    /// Matches a concrete URI against the whole template; `Some(values)` on a
    /// match, with every bound variable's value percent-decoded.
    ///
    /// Variables the URI leaves out (optional expressions, query parameters)
    /// are absent from the map. A value that does not decode to UTF-8 makes
    /// the match fail.
    #[must_use]
    pub fn matches(&self, uri: &str) -> Option<BTreeMap<String, String>> {
        let captures = self.matcher.captures(uri)?;
        let areas: Vec<(&Expression, &str)> = self
            .expressions()
            .zip(captures.iter().skip(1))
            .map(|(expression, area)| (expression, area.map_or("", |area| &uri[area.range()])))
            .collect();
        // Query expressions share one query component, so `{?a}{&b}` also
        // matches `?b=1&a=2`.
        let query_params: Vec<(&str, &str)> = areas
            .iter()
            .filter(|(expression, _)| expression.operator.is_query())
            .flat_map(|(expression, area)| named_params(area, expression.operator))
            .collect();

        let mut values = BTreeMap::new();
        for (expression, area) in areas {
            let operator = expression.operator;
            if operator.is_query() {
                bind_named(&expression.variables, &query_params, &mut values)?;
            } else if operator.is_named() {
                let params: Vec<_> = named_params(area, operator).collect();
                bind_named(&expression.variables, &params, &mut values)?;
            } else {
                bind_positional(expression, area, &mut values)?;
            }
        }
        Some(values)
    }

    /// Expands the template, percent-encoding each value as its operator
    /// requires; variables missing from `values` are undefined and expand to
    /// nothing.
    #[must_use]
    pub fn expand(&self, values: &BTreeMap<String, String>) -> String {
        let mut uri = String::with_capacity(self.source.len());
        for part in &self.parts {
            match part {
                Part::Literal(text) => uri.push_str(text),
                Part::Expression(expression) => expand_expression(&mut uri, expression, values),
            }
        }
        uri
    }

    fn expressions(&self) -> impl Iterator<Item = &Expression> + '_ {
        self.parts.iter().filter_map(|part| match part {
            Part::Expression(expression) => Some(expression),
            Part::Literal(_) => None,
        })
    }
}

impl FromStr for UriTemplate {
    type Err = UriTemplateError;

    fn from_str(template: &str) -> Result<Self, Self::Err> {
        Self::parse(template)
    }
}

impl fmt::Display for UriTemplate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.source)
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Part {
    Literal(String),
    Expression(Expression),
}

#[derive(Debug, Clone, PartialEq, Eq)]
struct Expression {
    operator: Operator,
    variables: Vec<VarSpec>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
struct VarSpec {
    name: String,
    modifier: Modifier,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Modifier {
    None,
    Prefix(usize),
    Explode,
}

/// The expression operators of RFC 6570, section 2.2.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Operator {
    /// `{var}`
    Simple,
    /// `{+var}`
    Reserved,
    /// `{#var}`
    Fragment,
    /// `{.var}`
    Label,
    /// `{/var}`
    PathSegment,
    /// `{;var}`
    PathParameter,
    /// `{?var}`
    Query,
    /// `{&var}`
    QueryContinuation,
}

impl Operator {
    /// Splits the operator off an expression body.
    fn split(body: &str) -> Result<(Self, &str), UriTemplateError> {
        let mut chars = body.chars();
        let operator = match chars.next() {
            Some('+') => Self::Reserved,
            Some('#') => Self::Fragment,
            Some('.') => Self::Label,
            Some('/') => Self::PathSegment,
            Some(';') => Self::PathParameter,
            Some('?') => Self::Query,
            Some('&') => Self::QueryContinuation,
            Some(op @ ('=' | ',' | '!' | '@' | '|')) => return Err(UriTemplateError::UnsupportedOperator { op }),
            _ => return Ok((Self::Simple, body)),
        };
        Ok((operator, chars.as_str()))
    }

    /// Text written before the first defined variable.
    fn prefix(self) -> &'static str {
        match self {
            Self::Simple | Self::Reserved => "",
            Self::Fragment => "#",
            Self::Label => ".",
            Self::PathSegment => "/",
            Self::PathParameter => ";",
            Self::Query => "?",
            Self::QueryContinuation => "&",
        }
    }

    /// Separator between values (and between exploded items).
    fn separator(self) -> char {
        match self {
            Self::Simple | Self::Reserved | Self::Fragment => ',',
            Self::Label => '.',
            Self::PathSegment => '/',
            Self::PathParameter => ';',
            Self::Query | Self::QueryContinuation => '&',
        }
    }

    /// Whether values are written as `name=value`.
    fn is_named(self) -> bool {
        matches!(self, Self::PathParameter | Self::Query | Self::QueryContinuation)
    }

    fn is_query(self) -> bool {
        matches!(self, Self::Query | Self::QueryContinuation)
    }

    /// What follows the name of a named variable whose value is empty.
    fn empty_value_suffix(self) -> &'static str {
        if self.is_query() {
            "="
        } else {
            ""
        }
    }

    /// Whether reserved characters and pct-encoded triplets in values are
    /// copied rather than encoded.
    fn allows_reserved(self) -> bool {
        matches!(self, Self::Reserved | Self::Fragment)
    }
}

fn parse_parts(template: &str) -> Result<Vec<Part>, UriTemplateError> {
    let mut parts = Vec::new();
    let mut rest = template;
    while !rest.is_empty() {
        let offset = template.len() - rest.len();
        let Some(brace) = rest.find(['{', '}']) else {
            parts.push(Part::Literal(rest.to_owned()));
            break;
        };
        if rest[brace..].starts_with('}') {
            return Err(UriTemplateError::UnmatchedClosingBrace { offset: offset + brace });
        }
        if brace > 0 {
            parts.push(Part::Literal(rest[..brace].to_owned()));
        }
        let expression_offset = offset + brace;
        let after_open = &rest[brace + 1..];
        let close = after_open
            .find(['{', '}'])
            .filter(|&end| after_open[end..].starts_with('}'))
            .ok_or(UriTemplateError::UnclosedExpression {
                offset: expression_offset,
            })?;
        let expression = parse_expression(&after_open[..close], expression_offset)?;
        parts.push(Part::Expression(expression));
        rest = &after_open[close + 1..];
    }
    Ok(parts)
}

fn parse_expression(body: &str, offset: usize) -> Result<Expression, UriTemplateError> {
    let (operator, variable_list) = Operator::split(body)?;
    if variable_list.is_empty() {
        return Err(UriTemplateError::EmptyExpression { offset });
    }
    let variables = variable_list.split(',').map(parse_varspec).collect::<Result<_, _>>()?;
    Ok(Expression { operator, variables })
}

fn parse_varspec(spec: &str) -> Result<VarSpec, UriTemplateError> {
    let (name, modifier) = if let Some(name) = spec.strip_suffix('*') {
        (name, Modifier::Explode)
    } else if let Some((name, length)) = spec.split_once(':') {
        (name, Modifier::Prefix(parse_prefix_length(name, length)?))
    } else {
        (spec, Modifier::None)
    };
    if !is_valid_variable_name(name) {
        return Err(UriTemplateError::InvalidVariableName { name: spec.to_owned() });
    }
    Ok(VarSpec {
        name: name.to_owned(),
        modifier,
    })
}

fn parse_prefix_length(name: &str, length: &str) -> Result<usize, UriTemplateError> {
    let is_well_formed = !length.starts_with('0') && length.bytes().all(|b| b.is_ascii_digit());
    length
        .parse()
        .ok()
        .filter(|value| is_well_formed && (1..=MAX_PREFIX_LENGTH).contains(value))
        .ok_or_else(|| UriTemplateError::InvalidPrefixLength {
            name: name.to_owned(),
            length: length.to_owned(),
        })
}

/// `varname = varchar *( ["."] varchar )`, where `varchar` is a letter, a
/// digit, `_` or a pct-encoded triplet.
fn is_valid_variable_name(name: &str) -> bool {
    name.split('.').all(|segment| {
        let bytes = segment.as_bytes();
        let mut index = 0;
        while let Some(&byte) = bytes.get(index) {
            index += match byte {
                b'%' if starts_with_pct_triplet(&bytes[index..]) => 3,
                b'_' => 1,
                _ if byte.is_ascii_alphanumeric() => 1,
                _ => return false,
            };
        }
        !bytes.is_empty()
    })
}

fn starts_with_pct_triplet(bytes: &[u8]) -> bool {
    matches!(bytes, [b'%', high, low, ..] if high.is_ascii_hexdigit() && low.is_ascii_hexdigit())
}

/// The template compiled into an anchored regular expression with one
/// capture group per expression, holding all the text that expression
/// expanded to.
///
/// Built without the fully compiled DFA the `regex` crate would add for such
/// small patterns: determinizing it took most of a server's start-up, and the
/// lazy DFA matches a URI as quickly.
#[derive(Debug, Clone)]
struct Matcher {
    pattern: String,
    regex: meta::Regex,
}

// Equal templates compile to equal patterns, so comparing the patterns keeps
// `UriTemplate` equality derivable.
impl PartialEq for Matcher {
    fn eq(&self, other: &Self) -> bool {
        self.pattern == other.pattern
    }
}

impl Eq for Matcher {}

impl Matcher {
    fn compile(parts: &[Part]) -> Result<Self, UriTemplateError> {
        let mut pattern = String::from(r"(?s)\A");
        let mut in_query = false;
        let mut names_fragment = false;
        for part in parts {
            match part {
                Part::Literal(text) => {
                    pattern.push_str(&regex_syntax::escape(text));
                    in_query |= text.contains('?');
                    names_fragment |= text.contains('#');
                }
                Part::Expression(expression) => {
                    pattern.push_str(&expression_pattern(expression, in_query));
                    names_fragment |= expression.operator == Operator::Fragment;
                }
            }
        }
        // A fragment is not part of the resource a URI names: one the template does not
        // speak of is left out of the match.
        if !names_fragment {
            pattern.push_str("(?:#.*)?");
        }
        pattern.push_str(r"\z");
        // The only possible failure is exceeding the compiled size limit.
        let regex = meta::Regex::builder()
            .configure(meta::Regex::config().dfa(false))
            .build(&pattern)
            .map_err(|_| UriTemplateError::TooComplex)?;
        Ok(Matcher { pattern, regex })
    }

    /// The capture groups of a match of the whole `uri`.
    fn captures(&self, uri: &str) -> Option<Captures> {
        let mut captures = self.regex.create_captures();
        self.regex.captures(uri, &mut captures);
        captures.is_match().then_some(captures)
    }
}

/// The pattern for the text one expression expands to. Content quantifiers
/// are lazy so that earlier variables take as few characters as possible;
/// optional groups are greedy so that a value present in the URI binds to the
/// first variable that can hold it. A simple one after a literal `?` is a value
/// the template's query names (`?q={q}`): it runs to the next `&`, and may be
/// empty or hold a `/`.
fn expression_pattern(expression: &Expression, in_query: bool) -> String {
    match expression.operator {
        Operator::Simple if in_query => "([^&#]*?)".to_owned(),
        // An exploded one (`{path*}`) takes whole paths, as FastMCP's templates do.
        Operator::Simple if is_exploded(expression) => "([^?#]+?)".to_owned(),
        Operator::Simple => "([^/?#]+?)".to_owned(),
        Operator::Reserved => "(.+?)".to_owned(),
        Operator::Fragment => "((?:#.*?)?)".to_owned(),
        Operator::Label => r"((?:\.[^/?#]*?)?)".to_owned(),
        Operator::PathSegment => {
            let segments = if is_exploded(expression) {
                "*".to_owned()
            } else {
                format!("{{0,{}}}", expression.variables.len())
            };
            format!("((?:/[^/?#]*?){segments})")
        }
        Operator::PathParameter => "((?:;[^/?#]*?)?)".to_owned(),
        Operator::Query => r"((?:\?[^#]*?)?)".to_owned(),
        Operator::QueryContinuation => "((?:&[^#]*?)?)".to_owned(),
    }
}

/// Whether one of an expression's variables is exploded (`{/list*}`).
fn is_exploded(expression: &Expression) -> bool {
    expression
        .variables
        .iter()
        .any(|variable| variable.modifier == Modifier::Explode)
}

/// Splits the text a named expression matched into `(name, value)` pairs,
/// still percent-encoded.
fn named_params(area: &str, operator: Operator) -> impl Iterator<Item = (&str, &str)> {
    area.strip_prefix(operator.prefix())
        .into_iter()
        .flat_map(move |body| body.split(operator.separator()))
        .map(|param| param.split_once('=').unwrap_or((param, "")))
}

/// Binds the variables of a named expression by looking their names up in
/// `params`; an exploded variable collects every occurrence of its name.
fn bind_named(variables: &[VarSpec], params: &[(&str, &str)], values: &mut BTreeMap<String, String>) -> Option<()> {
    for variable in variables {
        let mut occurrences = params
            .iter()
            .filter(|(name, _)| *name == variable.name)
            .map(|(_, value)| percent_decode(value));
        let value = if variable.modifier == Modifier::Explode {
            let items = occurrences.collect::<Option<Vec<_>>>()?;
            if items.is_empty() {
                continue;
            }
            items.join(",")
        } else {
            match occurrences.next() {
                Some(value) => value?,
                None => continue,
            }
        };
        bind(values, variable, value)?;
    }
    Some(())
}

/// Binds the variables of an unnamed expression to the values its text holds
/// in order. When there are more values than variables, the first exploded
/// variable, or else the last variable, takes the extra ones.
fn bind_positional(expression: &Expression, area: &str, values: &mut BTreeMap<String, String>) -> Option<()> {
    let separator = expression.operator.separator();
    // An expression with a prefix that matched nothing defines no variable.
    let Some(body) = area.strip_prefix(expression.operator.prefix()) else {
        return Some(());
    };
    let items: Vec<&str> = body.split(separator).collect();
    let variables = &expression.variables;
    let absorber = variables
        .iter()
        .position(|variable| variable.modifier == Modifier::Explode)
        .unwrap_or(variables.len().saturating_sub(1));
    let extra = items.len().saturating_sub(variables.len());

    let mut items = items.into_iter();
    for (index, variable) in variables.iter().enumerate() {
        let count = if index == absorber { 1 + extra } else { 1 };
        let taken: Vec<&str> = items.by_ref().take(count).collect();
        if taken.is_empty() {
            break;
        }
        let value = if variable.modifier == Modifier::Explode {
            taken
                .into_iter()
                .map(percent_decode)
                .collect::<Option<Vec<_>>>()?
                .join(",")
        } else {
            percent_decode(&taken.join(&separator.to_string()))?
        };
        bind(values, variable, value)?;
    }
    Some(())
}

/// Records `value` for `variable`, failing when it is longer than the
/// variable's prefix or differs from a value bound by an earlier occurrence.
fn bind(values: &mut BTreeMap<String, String>, variable: &VarSpec, value: String) -> Option<()> {
    if let Modifier::Prefix(max_chars) = variable.modifier {
        if value.chars().count() > max_chars {
            return None;
        }
    }
    match values.entry(variable.name.clone()) {
        Entry::Vacant(slot) => {
            slot.insert(value);
        }
        Entry::Occupied(slot) if *slot.get() != value => return None,
        Entry::Occupied(_) => {}
    }
    Some(())
}

fn percent_decode(text: &str) -> Option<String> {
    percent_decode_str(text).decode_utf8().ok().map(Cow::into_owned)
}

fn expand_expression(uri: &mut String, expression: &Expression, values: &BTreeMap<String, String>) {
    let operator = expression.operator;
    let defined = expression
        .variables
        .iter()
        .filter_map(|variable| Some((variable, values.get(&variable.name)?)));
    for (index, (variable, value)) in defined.enumerate() {
        if index == 0 {
            uri.push_str(operator.prefix());
        } else {
            uri.push(operator.separator());
        }
        match variable.modifier {
            Modifier::None => expand_value(uri, operator, &variable.name, value),
            Modifier::Prefix(max_chars) => {
                expand_value(uri, operator, &variable.name, truncate_chars(value, max_chars));
            }
            Modifier::Explode => {
                for (item_index, item) in value.split(',').enumerate() {
                    if item_index > 0 {
                        uri.push(operator.separator());
                    }
                    expand_value(uri, operator, &variable.name, item);
                }
            }
        }
    }
}

fn expand_value(uri: &mut String, operator: Operator, name: &str, value: &str) {
    if operator.is_named() {
        uri.push_str(name);
        if value.is_empty() {
            uri.push_str(operator.empty_value_suffix());
            return;
        }
        uri.push('=');
    }
    if operator.allows_reserved() {
        encode_reserved(uri, value);
    } else {
        uri.extend(utf8_percent_encode(value, UNRESERVED));
    }
}

/// Encodes `value` for reserved expansion: reserved characters and
/// well-formed pct-encoded triplets are copied, a lone `%` is encoded.
fn encode_reserved(uri: &mut String, value: &str) {
    let mut rest = value;
    while let Some(percent) = rest.find('%') {
        uri.extend(utf8_percent_encode(&rest[..percent], UNRESERVED_OR_RESERVED));
        let from_percent = &rest[percent..];
        let consumed = if starts_with_pct_triplet(from_percent.as_bytes()) {
            uri.push_str(&from_percent[..3]);
            3
        } else {
            uri.push_str("%25");
            1
        };
        rest = &from_percent[consumed..];
    }
    uri.extend(utf8_percent_encode(rest, UNRESERVED_OR_RESERVED));
}

fn truncate_chars(value: &str, max_chars: usize) -> &str {
    value
        .char_indices()
        .nth(max_chars)
        .map_or(value, |(end, _)| &value[..end])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn template(text: &str) -> UriTemplate {
        UriTemplate::parse(text).expect("template parses")
    }

    fn values(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(name, value)| ((*name).to_owned(), (*value).to_owned()))
            .collect()
    }

    /// The RFC 6570 section 3.2 variables that fit string values.
    fn rfc_values() -> BTreeMap<String, String> {
        values(&[
            ("var", "value"),
            ("hello", "Hello World!"),
            ("half", "50%"),
            ("empty", ""),
            ("path", "/foo/bar"),
            ("x", "1024"),
            ("y", "768"),
            ("list", "red,green,blue"),
        ])
    }

    fn expand_rfc(text: &str) -> String {
        template(text).expand(&rfc_values())
    }

    #[test]
    fn parse_rejects_malformed_templates() {
        use UriTemplateError::*;
        let cases = [
            ("greeting://{name", UnclosedExpression { offset: 11 }),
            ("a{b{c}", UnclosedExpression { offset: 1 }),
            ("a}b", UnmatchedClosingBrace { offset: 1 }),
            ("x{}", EmptyExpression { offset: 1 }),
            ("{?}", EmptyExpression { offset: 0 }),
            ("{=x}", UnsupportedOperator { op: '=' }),
            ("{|x}", UnsupportedOperator { op: '|' }),
            ("{a-b}", InvalidVariableName { name: "a-b".into() }),
            ("{a,,b}", InvalidVariableName { name: "".into() }),
            ("{.a.}", InvalidVariableName { name: "a.".into() }),
            ("{a..b}", InvalidVariableName { name: "a..b".into() }),
            ("{a%2}", InvalidVariableName { name: "a%2".into() }),
            ("{ a}", InvalidVariableName { name: " a".into() }),
            ("{x*:3}", InvalidVariableName { name: "x*:3".into() }),
            ("{x:3*}", InvalidVariableName { name: "x:3*".into() }),
        ];
        for (text, expected) in cases {
            assert_eq!(UriTemplate::parse(text), Err(expected), "{text}");
        }
    }

    #[test]
    fn parse_rejects_bad_prefix_lengths() {
        for length in ["0", "012", "10000", "", "+5", "x"] {
            let text = format!("{{var:{length}}}");
            assert_eq!(
                UriTemplate::parse(&text),
                Err(UriTemplateError::InvalidPrefixLength {
                    name: "var".into(),
                    length: length.into()
                }),
                "{text}"
            );
        }
        assert!(UriTemplate::parse("{var:9999}").is_ok());
    }

    #[test]
    fn parse_accepts_rfc_variable_names() {
        let parsed = template("{a.b,_c%2A,A1}{?a.b}");
        assert_eq!(parsed.variables().collect::<Vec<_>>(), ["a.b", "_c%2A", "A1"]);
    }

    #[test]
    fn error_messages_are_descriptive() {
        let error = UriTemplate::parse("a}").unwrap_err();
        assert_eq!(error.to_string(), "unmatched `}` at byte 1");
        let error = UriTemplate::parse("{!x}").unwrap_err();
        assert_eq!(error.to_string(), "unsupported operator `!`");
    }

    #[test]
    fn oversized_template_is_rejected_not_panicking() {
        let names: Vec<String> = (0..20_000).map(|index| format!("v{index}")).collect();
        let text = format!("{{/{}}}", names.join(","));
        assert_eq!(UriTemplate::parse(&text), Err(UriTemplateError::TooComplex));
    }

    #[test]
    fn text_variables_and_static_templates() {
        let parsed: UriTemplate = "weather://{city}/{day}{?days,city}".parse().unwrap();
        assert_eq!(parsed.as_str(), "weather://{city}/{day}{?days,city}");
        assert_eq!(parsed.to_string(), parsed.as_str());
        assert_eq!(parsed.variables().collect::<Vec<_>>(), ["city", "day", "days"]);
        assert!(!parsed.is_static());

        let fixed = template("config://app/settings");
        assert!(fixed.is_static());
        assert_eq!(fixed.variables().count(), 0);
        assert_eq!(fixed.expand(&BTreeMap::new()), "config://app/settings");
        assert_eq!(fixed.matches("config://app/settings"), Some(BTreeMap::new()));
        assert_eq!(fixed.matches("config://app/settings/x"), None);
        assert!(template("").is_static());
    }

    #[test]
    fn equal_text_means_equal_templates() {
        assert_eq!(template("a{b}"), template("a{b}"));
        assert_ne!(template("a{b}"), template("a{+b}"));
        assert_eq!(template("a{b}").clone(), template("a{b}"));
    }

    #[test]
    fn expand_simple() {
        assert_eq!(expand_rfc("{var}"), "value");
        assert_eq!(expand_rfc("{hello}"), "Hello%20World%21");
        assert_eq!(expand_rfc("{half}"), "50%25");
        assert_eq!(expand_rfc("O{empty}X"), "OX");
        assert_eq!(expand_rfc("O{undef}X"), "OX");
        assert_eq!(expand_rfc("{x,y}"), "1024,768");
        assert_eq!(expand_rfc("{x,hello,y}"), "1024,Hello%20World%21,768");
        assert_eq!(expand_rfc("?{x,empty}"), "?1024,");
        assert_eq!(expand_rfc("?{x,undef}"), "?1024");
        assert_eq!(expand_rfc("{var:3}"), "val");
        assert_eq!(expand_rfc("{var:30}"), "value");
        assert_eq!(expand_rfc("{list*}"), "red,green,blue");
        assert_eq!(
            template("greeting://{name:2}").expand(&values(&[("name", "Jörg")])),
            "greeting://J%C3%B6"
        );
    }

    #[test]
    fn expand_reserved() {
        assert_eq!(expand_rfc("{+var}"), "value");
        assert_eq!(expand_rfc("{+hello}"), "Hello%20World!");
        assert_eq!(expand_rfc("{+half}"), "50%25");
        assert_eq!(expand_rfc("{+path}/here"), "/foo/bar/here");
        assert_eq!(expand_rfc("here?ref={+path}"), "here?ref=/foo/bar");
        assert_eq!(expand_rfc("up{+path}{var}/here"), "up/foo/barvalue/here");
        assert_eq!(expand_rfc("{+x,hello,y}"), "1024,Hello%20World!,768");
        assert_eq!(expand_rfc("{+path:6}/here"), "/foo/b/here");
        assert_eq!(expand_rfc("{+list*}"), "red,green,blue");
        let encoded = values(&[("v", "a%2Fb %zz")]);
        assert_eq!(template("{+v}").expand(&encoded), "a%2Fb%20%25zz");
    }

    #[test]
    fn expand_fragment() {
        assert_eq!(expand_rfc("{#var}"), "#value");
        assert_eq!(expand_rfc("{#hello}"), "#Hello%20World!");
        assert_eq!(expand_rfc("{#half}"), "#50%25");
        assert_eq!(expand_rfc("foo{#empty}"), "foo#");
        assert_eq!(expand_rfc("foo{#undef}"), "foo");
        assert_eq!(expand_rfc("X{#var}"), "X#value");
        assert_eq!(expand_rfc("{#x,hello,y}"), "#1024,Hello%20World!,768");
        assert_eq!(expand_rfc("{#path,x}/here"), "#/foo/bar,1024/here");
        assert_eq!(expand_rfc("{#path:6}/here"), "#/foo/b/here");
        assert_eq!(expand_rfc("{#list*}"), "#red,green,blue");
    }

    #[test]
    fn expand_label() {
        assert_eq!(expand_rfc("{.who}"), "");
        assert_eq!(expand_rfc("X{.var}"), "X.value");
        assert_eq!(expand_rfc("X{.empty}"), "X.");
        assert_eq!(expand_rfc("X{.undef}"), "X");
        assert_eq!(expand_rfc("X{.x,y}"), "X.1024.768");
        assert_eq!(expand_rfc("X{.var:3}"), "X.val");
        assert_eq!(expand_rfc("X{.list*}"), "X.red.green.blue");
    }

    #[test]
    fn expand_path_segments() {
        assert_eq!(expand_rfc("{/var}"), "/value");
        assert_eq!(expand_rfc("{/var,x}/here"), "/value/1024/here");
        assert_eq!(expand_rfc("{/var,empty}"), "/value/");
        assert_eq!(expand_rfc("{/var,undef}"), "/value");
        assert_eq!(expand_rfc("{/var:1,var}"), "/v/value");
        assert_eq!(expand_rfc("{/list*}"), "/red/green/blue");
        assert_eq!(expand_rfc("{/list*,path:4}"), "/red/green/blue/%2Ffoo");
        assert_eq!(expand_rfc("{/path}"), "/%2Ffoo%2Fbar");
    }

    #[test]
    fn expand_path_parameters() {
        assert_eq!(expand_rfc("{;x,y}"), ";x=1024;y=768");
        assert_eq!(expand_rfc("{;x,y,empty}"), ";x=1024;y=768;empty");
        assert_eq!(expand_rfc("{;x,y,undef}"), ";x=1024;y=768");
        assert_eq!(expand_rfc("{;hello:5}"), ";hello=Hello");
        assert_eq!(expand_rfc("{;list*}"), ";list=red;list=green;list=blue");
    }

    #[test]
    fn expand_query_and_continuation() {
        assert_eq!(expand_rfc("{?x,y}"), "?x=1024&y=768");
        assert_eq!(expand_rfc("{?x,y,empty}"), "?x=1024&y=768&empty=");
        assert_eq!(expand_rfc("{?x,y,undef}"), "?x=1024&y=768");
        assert_eq!(expand_rfc("{?undef}"), "");
        assert_eq!(expand_rfc("{?var:3}"), "?var=val");
        assert_eq!(expand_rfc("{?list*}"), "?list=red&list=green&list=blue");
        assert_eq!(expand_rfc("{&x}"), "&x=1024");
        assert_eq!(expand_rfc("?fixed=yes{&x}"), "?fixed=yes&x=1024");
        assert_eq!(expand_rfc("{&x,y,empty}"), "&x=1024&y=768&empty=");
        assert_eq!(expand_rfc("{&var:3}"), "&var=val");
        assert_eq!(expand_rfc("{&list*}"), "&list=red&list=green&list=blue");
        assert_eq!(expand_rfc("search{?hello}"), "search?hello=Hello%20World%21");
    }

    #[test]
    fn match_simple_variable() {
        let greeting = template("greeting://{name}");
        assert_eq!(greeting.matches("greeting://ada"), Some(values(&[("name", "ada")])));
        assert_eq!(greeting.matches("greeting://a/b"), None);
        assert_eq!(greeting.matches("greeting://"), None);
        assert_eq!(greeting.matches("greeting://ada?x=1"), None);
    }

    #[test]
    fn a_fragment_the_template_does_not_name_is_left_out() {
        let data = template("data://{id}{?format}");
        let expected = Some(values(&[("id", "42"), ("format", "xml")]));
        assert_eq!(data.matches("data://42?format=xml#top"), expected);
        assert_eq!(data.matches("data://42#top"), Some(values(&[("id", "42")])));
        let path = template("file:///{+path}");
        assert_eq!(path.matches("file:///a/b#c"), Some(values(&[("path", "a/b")])));
        let anchored = template("doc://{name}#intro");
        assert_eq!(
            anchored.matches("doc://guide#intro"),
            Some(values(&[("name", "guide")]))
        );
        assert_eq!(anchored.matches("doc://guide#other"), None);
        let fragment = template("doc://{name}{#section}");
        let expected = Some(values(&[("name", "guide"), ("section", "usage")]));
        assert_eq!(fragment.matches("doc://guide#usage"), expected);
    }

    #[test]
    fn a_variable_in_a_literal_query_runs_to_the_next_ampersand() {
        let search = template("search://items?q={q}");
        assert_eq!(
            search.matches("search://items?q=shoes"),
            Some(values(&[("q", "shoes")]))
        );
        assert_eq!(search.matches("search://items?q="), Some(values(&[("q", "")])));
        assert_eq!(search.matches("search://items?q=a/b"), Some(values(&[("q", "a/b")])));
        assert_eq!(search.matches("search://items?q=shoes&page=2"), None);
        assert_eq!(search.matches("search://items"), None);
        let two = template("search://items?q={q}&page={page}");
        let expected = Some(values(&[("q", "shoes"), ("page", "2")]));
        assert_eq!(two.matches("search://items?q=shoes&page=2"), expected);
    }

    #[test]
    fn match_requires_exact_literals() {
        let greeting = template("greeting://{name}/profile");
        assert!(greeting.matches("greeting://ada/profile").is_some());
        assert_eq!(greeting.matches("greetings://ada/profile"), None);
        assert_eq!(greeting.matches("xgreeting://ada/profile"), None);
        assert_eq!(greeting.matches("greeting://ada/profiles"), None);
        assert_eq!(greeting.matches("greeting://ada/profil"), None);
        assert_eq!(greeting.matches("GREETING://ada/profile"), None);
        assert_eq!(template("a.b{x}").matches("aXb1"), None);
    }

    #[test]
    fn match_splits_at_the_next_literal() {
        let pair = template("repo://{owner}-{name}.git");
        assert_eq!(
            pair.matches("repo://rust-lang-regex.git"),
            Some(values(&[("owner", "rust"), ("name", "lang-regex")]))
        );
        let list = template("{a,b}");
        assert_eq!(list.matches("1,2"), Some(values(&[("a", "1"), ("b", "2")])));
        assert_eq!(list.matches("1"), Some(values(&[("a", "1")])));
    }

    #[test]
    fn match_reserved_crosses_slashes() {
        let file = template("file:///{+path}");
        assert_eq!(
            file.matches("file:///home/ada/notes.txt"),
            Some(values(&[("path", "home/ada/notes.txt")]))
        );
        assert_eq!(file.matches("file:///"), None);
        assert_eq!(
            template("file:///{+path}/raw").matches("file:///a/b/raw"),
            Some(values(&[("path", "a/b")]))
        );
        assert_eq!(
            template("docs://{+path}{?rev}").matches("docs://a/b?rev=3"),
            Some(values(&[("path", "a/b"), ("rev", "3")]))
        );
    }

    #[test]
    fn match_query_parameters() {
        let weather = template("weather://{city}/forecast{?days,units}");
        assert_eq!(
            weather.matches("weather://london/forecast?days=3&units=metric"),
            Some(values(&[("city", "london"), ("days", "3"), ("units", "metric")]))
        );
        assert_eq!(
            weather.matches("weather://london/forecast?units=metric&days=3"),
            Some(values(&[("city", "london"), ("days", "3"), ("units", "metric")]))
        );
        assert_eq!(
            weather.matches("weather://london/forecast?units=metric"),
            Some(values(&[("city", "london"), ("units", "metric")]))
        );
        assert_eq!(
            weather.matches("weather://london/forecast"),
            Some(values(&[("city", "london")]))
        );
        assert_eq!(
            weather.matches("weather://london/forecast?lang=en&days=5&days=9"),
            Some(values(&[("city", "london"), ("days", "5")]))
        );
        assert_eq!(
            weather.matches("weather://london/forecast?days"),
            Some(values(&[("city", "london"), ("days", "")]))
        );
        assert_eq!(weather.matches("weather://london/forecasts?days=3"), None);
        assert_eq!(weather.matches("weather://london/forecast/x?days=3"), None);
    }

    #[test]
    fn match_query_continuation_in_any_order() {
        let search = template("search{?q}{&page}");
        assert_eq!(
            search.matches("search?page=2&q=rust"),
            Some(values(&[("page", "2"), ("q", "rust")]))
        );
        assert_eq!(search.matches("search?q=rust"), Some(values(&[("q", "rust")])));
        let fixed = template("items?sort=asc{&page}");
        assert_eq!(
            fixed.matches("items?sort=asc&x=1&page=4"),
            Some(values(&[("page", "4")]))
        );
        assert_eq!(fixed.matches("items?page=4&sort=asc"), None);
    }

    #[test]
    fn match_exploded_query_list() {
        let list = template("list{?tags*}");
        assert_eq!(
            list.matches("list?tags=a&other=x&tags=b%20c"),
            Some(values(&[("tags", "a,b c")]))
        );
        assert_eq!(list.matches("list"), Some(BTreeMap::new()));
    }

    #[test]
    fn match_path_segments() {
        let users = template("users{/id}");
        assert_eq!(users.matches("users/42"), Some(values(&[("id", "42")])));
        assert_eq!(users.matches("users"), Some(BTreeMap::new()));
        assert_eq!(users.matches("users/42/posts"), None);

        let nested = template("api{/version,resource}/list");
        assert_eq!(
            nested.matches("api/v1/users/list"),
            Some(values(&[("resource", "users"), ("version", "v1")]))
        );
        assert_eq!(nested.matches("api/v1/users/x/list"), None);

        let exploded = template("tree{/segments*}");
        let wildcard = template("docs://{path*}");
        assert_eq!(
            wildcard.matches("docs://guide/intro.md"),
            Some(values(&[("path", "guide/intro.md")]))
        );
        let between = template("repo://{owner}/{path*}/raw");
        assert_eq!(
            between.matches("repo://ada/src/lib.rs/raw"),
            Some(values(&[("owner", "ada"), ("path", "src/lib.rs")]))
        );
        assert_eq!(wildcard.matches("docs://guide?x=1"), None);
        assert_eq!(exploded.matches("tree/a/b/c"), Some(values(&[("segments", "a,b,c")])));
    }

    #[test]
    fn match_labels_fragments_and_parameters() {
        let file = template("file://{name}{.ext}");
        assert_eq!(
            file.matches("file://report.pdf"),
            Some(values(&[("ext", "pdf"), ("name", "report")]))
        );
        assert_eq!(file.matches("file://report"), Some(values(&[("name", "report")])));

        let doc = template("doc://{id}{#section}");
        assert_eq!(
            doc.matches("doc://7#intro/part"),
            Some(values(&[("id", "7"), ("section", "intro/part")]))
        );

        let matrix = template("map{;lat,long}");
        assert_eq!(
            matrix.matches("map;long=20;lat=10"),
            Some(values(&[("lat", "10"), ("long", "20")]))
        );
        assert_eq!(matrix.matches("map;lat"), Some(values(&[("lat", "")])));
    }

    #[test]
    fn match_decodes_percent_encoding() {
        let greeting = template("greeting://{name}");
        assert_eq!(
            greeting.matches("greeting://J%C3%B6rg"),
            Some(values(&[("name", "Jörg")]))
        );
        assert_eq!(greeting.matches("greeting://a%2Fb"), Some(values(&[("name", "a/b")])));
        assert_eq!(greeting.matches("greeting://Jörg"), Some(values(&[("name", "Jörg")])));
        assert_eq!(greeting.matches("greeting://%FF"), None);
        assert_eq!(
            template("s{?q}").matches("s?q=a%26b%3Dc"),
            Some(values(&[("q", "a&b=c")]))
        );
    }

    #[test]
    fn match_respects_prefix_length() {
        let short = template("code://{id:3}");
        assert_eq!(short.matches("code://abc"), Some(values(&[("id", "abc")])));
        assert_eq!(short.matches("code://J%C3%B6r"), Some(values(&[("id", "Jör")])));
        assert_eq!(short.matches("code://abcd"), None);
    }

    #[test]
    fn match_requires_repeated_variables_to_agree() {
        let twice = template("{x}/{x}");
        assert_eq!(twice.matches("a/a"), Some(values(&[("x", "a")])));
        assert_eq!(twice.matches("a/b"), None);
    }

    #[test]
    fn expand_then_match_round_trips() {
        let cases: &[(&str, &[(&str, &str)])] = &[
            ("greeting://{name}", &[("name", "Jörg Müller & co?")]),
            ("file:///{+path}", &[("path", "dir/sub dir/file.txt")]),
            (
                "weather://{city}/forecast{?days,units}",
                &[("city", "São Paulo"), ("days", "3"), ("units", "a&b=c")],
            ),
            ("users{/id}", &[("id", "a/b")]),
            ("file://{name}{.ext}", &[("name", "report"), ("ext", "tar.gz")]),
            ("list{?tags*}", &[("tags", "x,y z,w")]),
            ("tree{/segments*}/leaf", &[("segments", "a,b,c")]),
            ("search{?q}{&page}", &[("page", "2"), ("q", "#hash")]),
            ("map{;lat,long}", &[("lat", "1.5"), ("long", "")]),
            ("doc://{id}{#section}", &[("id", "7"), ("section", "a,b/c")]),
            ("code://{id:3}/{rest}", &[("id", "abc"), ("rest", "d")]),
        ];
        for (text, pairs) in cases {
            let parsed = template(text);
            let expected = values(pairs);
            let uri = parsed.expand(&expected);
            assert_eq!(parsed.matches(&uri), Some(expected), "{text} -> {uri}");
        }
    }

    #[test]
    fn matching_is_fast_on_adversarial_input() {
        let names: Vec<String> = (0..50).map(|index| format!("{{v{index}}}-")).collect();
        let parsed = template(&format!("{}end", names.concat()));
        let uri = "a-".repeat(20_000);
        assert_eq!(parsed.matches(&uri), None);
        let reserved = template("{+a}{+b}{+c}{+d}/x");
        assert_eq!(reserved.matches(&"/".repeat(20_000)), None);
    }
}
