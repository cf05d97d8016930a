//! Lint of the "Full menu submission tree", the body of `POST /api/v1/menu/preview` and
//! `PUT /api/v1/menu` (spec: "Full menu submission tree", "Limits", "Rules for PUT /menu").
//!
//! [`lint`] parses the text with positions, walks the tree once with a [`Path`] on the stack
//! (nothing is allocated for a node unless a diagnostic is pushed), and returns the one report
//! shape of the crate. Uniqueness is checked with maps borrowing the parsed strings, so the cost
//! stays linear in the size of the menu. The rules are data: [`RULES`].
//!
//! ```
//! use poscheck::menu::{lint, LintOptions};
//! let menu = br#"{"categories": [{"remoteCode": "C1", "name": "Drinks", "products": [
//!     {"remoteCode": "P1", "name": "Tea", "price": 2.5, "image": "https://cdn.example.com/tea.png"},
//!     {"remoteCode": "P1", "name": "Coffee", "price": 3, "image": "https://cdn.example.com/coffee.png"}]}]}"#;
//! let report = lint(menu, &LintOptions::default());
//! assert!(!report.ok);
//! let d = report.by_rule("remote-code/unique-product").next().unwrap();
//! assert_eq!(d.path, "categories[0].products[1].remoteCode");
//! assert_eq!(d.related[0].path, "categories[0].products[0].remoteCode");
//! ```

pub mod diff;
pub mod rules;

use crate::check;
use crate::contract::{GroupType, REMOTE_CODE_MAX_CHARS};
use crate::diagnostic::{parse_error_report, Collector, Path, Report, Rule};
use crate::json::{self, Kind, Limits, Member, Span, Value};
use rules::*;
use std::collections::hash_map::Entry;
use std::collections::HashMap;

pub use rules::RULES;

/// `Report::kind` of a menu lint.
pub const KIND: &str = "menu";

/// Options of [`lint`]; every field has a default.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LintOptions {
    /// Bounds against hostile input (nesting depth, size in bytes).
    pub limits: Limits,
    /// The lint stops once this many diagnostics are collected, and says so with an error
    /// (`menu/too-many-diagnostics`): a hostile or badly broken input cannot exhaust memory.
    pub max_diagnostics: usize,
}

impl Default for LintOptions {
    fn default() -> Self {
        Self { limits: Limits::default(), max_diagnostics: 10_000 }
    }
}

/// Lints a full menu submission. Never panics: invalid JSON (or input over a limit) gives the one
/// diagnostic of [`parse_error_report`] at the exact position.
pub fn lint(input: &[u8], options: &LintOptions) -> Report {
    let arena = json::Arena::for_input(input.len());
    lint_parsed(input, options, &arena).0
}

/// [`lint`], and the parsed document when the input parses, in the caller's arena (the sandbox
/// reads an upload from the tree the linter parsed, instead of parsing it a second time).
pub(crate) fn lint_parsed<'a>(input: &'a [u8], options: &LintOptions, arena: &'a json::Arena) -> (Report, Option<json::Document<'a>>) {
    let limits = Limits { max_diagnostics: options.limits.max_diagnostics.min(options.max_diagnostics), ..options.limits };
    let mut doc = match json::parse(input, &limits, arena) {
        Ok(doc) => doc,
        Err(e) => return (parse_error_report(input, &e, Some(KIND)), None),
    };
    let mut c = Collector::new();
    // The linter stops itself at max_diagnostics with its own error; the collector's budget is a
    // backstop for the text bound (long key paths repeated in many diagnostics).
    c.set_budget(options.max_diagnostics.saturating_add(64), &TOO_MANY_DIAGNOSTICS);
    c.set_kind(KIND);
    doc.duplicate_keys.truncate(options.max_diagnostics);
    c.duplicate_keys(&doc);
    let mut linter = Linter::new(&mut c, input, options.max_diagnostics);
    if !linter.full(&Path::ROOT, doc.root.span) {
        linter.menu(&doc.root);
    }
    (c.finish(input), Some(doc))
}

// Fields of each level, in the spec's order. They double as the `known` list of `field/unknown`.
pub(crate) const ROOT_FIELDS: [&str; 1] = ["categories"];
pub(crate) const CATEGORY_FIELDS: [&str; 4] = ["remoteCode", "name", "position", "products"];
pub(crate) const PRODUCT_FIELDS: [&str; 8] =
    ["remoteCode", "name", "description", "price", "tax", "maxPerOrder", "image", "modifierGroups"];
pub(crate) const GROUP_FIELDS: [&str; 6] = ["remoteCode", "name", "min", "max", "type", "options"];
pub(crate) const OPTION_FIELDS: [&str; 5] = ["remoteCode", "name", "price", "isDefault", "maxPerOrder"];

// Value rules of the tree ("Full menu submission tree", "Limits"); the menu writes and the store
// menu read check the same fields with the same bounds.
pub(crate) use crate::contract::{MIN_GROUP_MAX, MIN_GROUP_MIN, MIN_MAX_PER_ORDER, MIN_POSITION, MIN_PRICE, TAX_RANGE};
/// A modifier group's `type`: `radio` or `checkbox` (compared case-insensitively).
pub(crate) const GROUP_TYPES: &[&str] = GroupType::NAMES;

/// Names people write for a field of this contract (older read names, other APIs' names).
const ENTITY_ALIASES: &[(&str, &str)] = &[("code", "remoteCode")];
const PRODUCT_ALIASES: &[(&str, &str)] = &[
    ("code", "remoteCode"),
    ("imageUrl", "image"),
    ("imageUri", "image"),
    ("modifiers", "modifierGroups"),
    ("modifier_groups", "modifierGroups"),
];
const GROUP_ALIASES: &[(&str, &str)] = &[("code", "remoteCode"), ("modifierOptions", "options")];

/// Longest remoteCode accepted ("Limits": up to 100 characters).
pub const REMOTE_CODE_MAX_LEN: usize = REMOTE_CODE_MAX_CHARS;

/// The values of the known field slots of an object ([`check::pick`]); the flag says whether an
/// unknown key was seen.
fn pick<'d, const N: usize>(members: &'d [Member<'d>], names: &[&str; N]) -> ([Option<&'d Value<'d>>; N], bool) {
    let (found, unknown) = check::pick(members, names);
    (found.map(|m| m.map(|m| &m.value)), unknown)
}

/// First occurrences of keys: a short list while small (most groups have a handful of options),
/// a hash map once it grows, so hostile input stays linear.
#[derive(Debug)]
struct FirstSeen<'d, T> {
    small: Vec<(&'d str, T)>,
    map: HashMap<&'d str, T>,
}

impl<'d, T: Copy> FirstSeen<'d, T> {
    const SMALL: usize = 16;

    fn new() -> Self {
        Self { small: Vec::new(), map: HashMap::new() }
    }

    fn clear(&mut self) {
        self.small.clear();
        self.map.clear();
    }

    /// The first occurrence of `key` when there was one; otherwise records `at` and gives `None`.
    fn first(&mut self, key: &'d str, at: T) -> Option<T> {
        if !self.map.is_empty() {
            return match self.map.entry(key) {
                Entry::Occupied(e) => Some(*e.get()),
                Entry::Vacant(e) => {
                    e.insert(at);
                    None
                }
            };
        }
        if let Some(&(_, t)) = self.small.iter().find(|(k, _)| json::same_text(k, key)) {
            return Some(t);
        }
        self.small.push((key, at));
        if self.small.len() > Self::SMALL {
            self.map.extend(self.small.drain(..));
        }
        None
    }
}

/// Where a product remoteCode was first used.
#[derive(Debug, Clone, Copy)]
struct ProductAt {
    category: usize,
    product: usize,
    span: Span,
}

/// The first declaration of a modifier group remoteCode, to compare the later ones with.
#[derive(Debug, Clone, Copy)]
struct GroupAt<'d> {
    category: usize,
    product: usize,
    group: usize,
    code_span: Span,
    value: &'d Value<'d>,
}

struct Linter<'c, 'd> {
    c: &'c mut Collector,
    /// The text, to compare shared group declarations byte for byte before structurally.
    input: &'d [u8],
    /// Product remoteCode → first use, across the whole menu.
    products: HashMap<&'d str, ProductAt>,
    /// Modifier-group remoteCode → first declaration, across products (shared groups).
    groups: HashMap<&'d str, GroupAt<'d>>,
    /// Reused per level: category codes (menu), product names (category), group codes
    /// (product), option codes (group). Value: (index, span).
    category_codes: FirstSeen<'d, (usize, Span)>,
    product_names: FirstSeen<'d, (usize, Span)>,
    group_codes: FirstSeen<'d, (usize, Span)>,
    option_codes: FirstSeen<'d, (usize, Span)>,
    not_preserved_given: bool,
    max_diagnostics: usize,
    stopped: bool,
}

impl<'c, 'd> Linter<'c, 'd> {
    /// A remoteCode already used by the entity at `first_path`: reported on this one, pointing at
    /// the first, with the rule's own sentence as the fix.
    fn duplicate_code(&mut self, rule: &'static Rule, path: &Path, span: Span, message: String, first_path: &str, first_span: Span) {
        self.c
            .push(rule, &path.key("remoteCode"), span, message)
            .related_at(&format!("{first_path}.remoteCode"), first_span, "first used here")
            .help(rule.doc);
    }

    fn new(c: &'c mut Collector, input: &'d [u8], max_diagnostics: usize) -> Self {
        Self {
            c,
            input,
            products: HashMap::new(),
            groups: HashMap::new(),
            category_codes: FirstSeen::new(),
            product_names: FirstSeen::new(),
            group_codes: FirstSeen::new(),
            option_codes: FirstSeen::new(),
            not_preserved_given: false,
            max_diagnostics,
            stopped: false,
        }
    }

    /// Whether the diagnostic budget is spent; the first time, says where the lint stopped.
    fn full(&mut self, path: &Path, span: Span) -> bool {
        self.over_budget(0, path, span)
    }

    /// Whether `extra` more diagnostics would spend the budget (as [`full`](Self::full)).
    fn over_budget(&mut self, extra: usize, path: &Path, span: Span) -> bool {
        if self.stopped {
            return true;
        }
        if self.c.len().saturating_add(extra) < self.max_diagnostics {
            return false;
        }
        self.stopped = true;
        let max = self.max_diagnostics;
        self.c
            .push(
                &TOO_MANY_DIAGNOSTICS,
                path,
                Span::new(span.start, span.start + 1),
                format!("the lint stopped after {max} diagnostics: the menu from here on was not checked"),
            )
            .help("fix the diagnostics above and lint again, or raise the maxDiagnostics option");
        true
    }

    /// [`check::unknown_fields`], unless the object has more members than the diagnostic budget
    /// has room for (only hostile input does): then the lint stops there.
    fn unknown_fields(&mut self, path: &Path, v: &Value, members: usize, known: &[&'static str], aliases: &[(&str, &'static str)]) {
        if !self.over_budget(members, path, v.span) {
            check::unknown_fields(self.c, &UNKNOWN_FIELD, path, v, known, aliases);
        }
    }

    fn menu(&mut self, root: &'d Value<'d>) {
        let path = Path::ROOT;
        let Some(members) = root.as_object() else {
            self.c
                .push(
                    &ROOT_SHAPE,
                    &path,
                    root.span,
                    format!("the menu must be an object with a \"categories\" array, found {}", check::describe(root)),
                )
                .help("send the full menu submission tree: {\"categories\": [...]}");
            return;
        };
        let ([categories], unknown) = pick(members, &ROOT_FIELDS);
        if unknown {
            self.unknown_fields(&path, root, members.len(), &ROOT_FIELDS, &[("menu", "categories"), ("data", "categories")]);
        }
        let Some(categories) = categories else {
            check::required(self.c, &ROOT_SHAPE, &path, root, "categories");
            return;
        };
        let path = path.key("categories");
        let Some(list) = check::array(self.c, &ROOT_SHAPE, &path, categories) else { return };
        if list.is_empty() {
            self.c
                .push(&EMPTY_CATEGORIES, &path, categories.span, "the menu has no categories: PUT /menu would deactivate every item of the brand's catalog")
                .help("PUT /menu replaces the catalog (replacement, not merge); run POST /menu/preview first to see what would be deactivated");
            return;
        }
        let total_products = list.iter().filter_map(|c| c.get("products")?.as_array().map(<[_]>::len)).sum::<usize>();
        self.products.reserve(total_products);
        self.category_codes.clear();
        for (ci, category) in list.iter().enumerate() {
            let path = path.index(ci);
            if self.full(&path, category.span) {
                return;
            }
            self.category(&path, ci, category);
        }
    }

    fn category(&mut self, path: &Path, ci: usize, v: &'d Value<'d>) {
        let Some(members) = check::object(self.c, &TREE_SHAPE, path, v) else { return };
        let ([code, name, position, products], unknown) = pick(members, &CATEGORY_FIELDS);
        if unknown {
            self.unknown_fields(path, v, members.len(), &CATEGORY_FIELDS, ENTITY_ALIASES);
        }
        if !self.not_preserved_given {
            self.not_preserved_given = true;
            let (at, span) = match code {
                Some(code) => (path.key("remoteCode"), code.span),
                None => (*path, Span::new(v.span.start, v.span.start + 1)),
            };
            self.c
                .push(&NOT_PRESERVED, &at, span, "category and modifier-group remoteCodes are not preserved: the service assigns its own codes")
                .help("address categories and modifier groups by the service's codes (GET /api/v1/menu/stores/{storeRemoteId}); product and option remoteCodes are kept");
        }
        if let (Some(s), Some(code)) = (self.remote_code(path, v, code), code) {
            if let Some((first, first_span)) = self.category_codes.first(s, (ci, code.span)) {
                self.duplicate_code(
                    &UNIQUE_CATEGORY,
                    path,
                    code.span,
                    format!("category remoteCode \"{s}\" is already used by categories[{first}]"),
                    &format!("categories[{first}]"),
                    first_span,
                );
            }
        }
        if let Some(name) = name {
            check::string(self.c, &FIELD_TYPE, &path.key("name"), name);
        }
        if let Some(position) = position {
            integer(self.c, &FIELD_POSITION, &path.key("position"), position, MIN_POSITION);
        }
        let Some(products) = products else {
            self.c
                .push(&CATEGORY_EMPTY, path, Span::new(v.span.start, v.span.start + 1), "the category has no products")
                .help("add its products, or leave the category out");
            return;
        };
        let products_path = path.key("products");
        let Some(list) = check::array(self.c, &TREE_SHAPE, &products_path, products) else { return };
        if list.is_empty() {
            self.c
                .push(&CATEGORY_EMPTY, &products_path, products.span, "the category has no products")
                .help("add its products, or leave the category out");
            return;
        }
        self.product_names.clear();
        for (pi, product) in list.iter().enumerate() {
            let path = products_path.index(pi);
            if self.full(&path, product.span) {
                return;
            }
            self.product(&path, ci, pi, product);
        }
    }

    /// Checks a remoteCode (required, format) and gives it back when it is well-formed, for the
    /// uniqueness rules (a malformed code is reported once, not again as a duplicate).
    fn remote_code(&mut self, path: &Path, entity: &'d Value<'d>, code: Option<&'d Value<'d>>) -> Option<&'d str> {
        let Some(code) = code else {
            check::required(self.c, &REMOTE_CODE_REQUIRED, path, entity, "remoteCode");
            return None;
        };
        let s = match code.kind {
            Kind::String(s) => s,
            _ => {
                self.c.push(
                    &REMOTE_CODE_FORMAT,
                    &path.key("remoteCode"),
                    code.span,
                    format!("remoteCode must be a string, found {}", check::describe(code)),
                );
                return None;
            }
        };
        if s.len() <= REMOTE_CODE_MAX_LEN && !s.is_empty() && s.bytes().all(is_remote_code_byte) {
            return Some(s);
        }
        // "letters": whether letters outside ASCII (é, ñ) count is not shown: a warning, not an error.
        if s.chars().count() <= REMOTE_CODE_MAX_LEN
            && s.chars().all(|ch| ch.is_alphanumeric() || matches!(ch, '_' | '.' | '-' | ':'))
            && !s.is_ascii()
        {
            self.c
                .push(
                    &rules::REMOTE_CODE_NON_ASCII,
                    &path.key("remoteCode"),
                    code.span,
                    format!("remoteCode \"{s}\" has letters outside ASCII: the contract says \"letters\" without saying whether these are accepted"),
                )
                .help("ASCII letters, digits and '_', '.', '-', ':' are safe");
            return Some(s);
        }
        let message = remote_code_problem(s);
        self.c
            .push(&REMOTE_CODE_FORMAT, &path.key("remoteCode"), code.span, message)
            .help(format!("use 1 to {REMOTE_CODE_MAX_CHARS} letters, digits, '_', '.', '-' or ':'"));
        None
    }

    fn product(&mut self, path: &Path, ci: usize, pi: usize, v: &'d Value<'d>) {
        let Some(members) = check::object(self.c, &TREE_SHAPE, path, v) else { return };
        let ([code, name, description, price, tax, max_per_order, image, groups], unknown) = pick(members, &PRODUCT_FIELDS);
        if unknown {
            self.unknown_fields(path, v, members.len(), &PRODUCT_FIELDS, PRODUCT_ALIASES);
        }
        if let (Some(s), Some(code)) = (self.remote_code(path, v, code), code) {
            match self.products.entry(s) {
                Entry::Vacant(e) => {
                    e.insert(ProductAt { category: ci, product: pi, span: code.span });
                }
                Entry::Occupied(e) => {
                    let first = *e.get();
                    let first_path = format!("categories[{}].products[{}]", first.category, first.product);
                    self.duplicate_code(
                        &UNIQUE_PRODUCT,
                        path,
                        code.span,
                        format!("product remoteCode \"{s}\" is already used by {first_path}"),
                        &first_path,
                        first.span,
                    );
                }
            }
        }
        if let Some(name) = name {
            if let Some(s) = check::string(self.c, &FIELD_TYPE, &path.key("name"), name) {
                if let Some((first, first_span)) = self.product_names.first(s, (pi, name.span)) {
                    let first_path = format!("categories[{ci}].products[{first}]");
                    self.c
                        .push(
                            &PRODUCT_DUPLICATE_NAME,
                            &path.key("name"),
                            name.span,
                            format!("another product of this category is named \"{s}\": {first_path}"),
                        )
                        .related_at(&format!("{first_path}.name"), first_span, "same name here")
                        .help("customers cannot tell the two apart; rename one, or merge them");
                }
            }
        }
        if let Some(d) = description {
            if !d.is_null() && d.as_str().is_none() {
                self.c.push(
                    &FIELD_TYPE,
                    &path.key("description"),
                    d.span,
                    format!("description must be a string or null, found {}", check::describe(d)),
                );
            }
        }
        if let Some(price) = price {
            number(self.c, &FIELD_PRICE, &path.key("price"), price, MIN_PRICE, None);
        }
        if let Some(tax) = tax {
            match tax.as_number() {
                // A percentage instead of a fraction is the usual mistake: say so.
                Some(n) if n.value > 1.0 && n.value <= 100.0 => {
                    self.c
                        .push(
                            &FIELD_TAX,
                            &path.key("tax"),
                            tax.span,
                            format!("tax must be a number between 0 and 1, found the number {}", n.raw),
                        )
                        .help(format!("tax is a fraction, not a percentage: {}% is {}", n.raw, n.value / 100.0));
                }
                _ => {
                    number(self.c, &FIELD_TAX, &path.key("tax"), tax, TAX_RANGE.0, Some(TAX_RANGE.1));
                }
            }
        }
        if let Some(m) = max_per_order {
            integer(self.c, &FIELD_MAX_PER_ORDER, &path.key("maxPerOrder"), m, MIN_MAX_PER_ORDER);
        }
        self.image(path, v, image);
        let Some(groups) = groups else { return };
        let groups_path = path.key("modifierGroups");
        let Some(list) = check::array(self.c, &TREE_SHAPE, &groups_path, groups) else { return };
        self.group_codes.clear();
        for (gi, group) in list.iter().enumerate() {
            let path = groups_path.index(gi);
            if self.full(&path, group.span) {
                return;
            }
            self.group(&path, ci, pi, gi, group);
        }
    }

    fn image(&mut self, path: &Path, product: &'d Value<'d>, image: Option<&'d Value<'d>>) {
        let help = "give an absolute http or https URL of the picture; the service downloads it and re-hosts it as WebP";
        let Some(image) = image else {
            check::required(self.c, &IMAGE_REQUIRED, path, product, "image");
            return;
        };
        let at = path.key("image");
        let Some(url) = image.as_str() else {
            if image.is_null() {
                self.c
                    .push(&IMAGE_REQUIRED, &at, image.span, "image is required on every product of a full submission, found null")
                    .help(help);
            } else {
                self.c
                    .push(
                        &IMAGE_URL,
                        &at,
                        image.span,
                        format!("image must be an absolute http or https URL, found {}", check::describe(image)),
                    )
                    .help(help);
            }
            return;
        };
        match check::http_url_scheme(url) {
            Some("https") => {}
            Some(_) => {
                self.c.push(&IMAGE_INSECURE, &at, image.span, "image is served over plain http").help("use an https URL");
            }
            None => {
                self.c
                    .push(
                        &IMAGE_URL,
                        &at,
                        image.span,
                        format!("image must be an absolute http or https URL, found {}", check::describe(image)),
                    )
                    .help(help);
            }
        }
    }

    fn group(&mut self, path: &Path, ci: usize, pi: usize, gi: usize, v: &'d Value<'d>) {
        let Some(members) = check::object(self.c, &TREE_SHAPE, path, v) else { return };
        let ([code, name, min, max, kind, options], unknown) = pick(members, &GROUP_FIELDS);
        if unknown {
            self.unknown_fields(path, v, members.len(), &GROUP_FIELDS, GROUP_ALIASES);
        }
        if let (Some(s), Some(code)) = (self.remote_code(path, v, code), code) {
            if let Some((first, first_span)) = self.group_codes.first(s, (gi, code.span)) {
                let first_path = path_to_group(ci, pi, first);
                self.duplicate_code(
                    &UNIQUE_GROUP,
                    path,
                    code.span,
                    format!("modifier group remoteCode \"{s}\" is already used by {first_path} in this product"),
                    &first_path,
                    first_span,
                );
            } else {
                self.shared_group(path, s, GroupAt { category: ci, product: pi, group: gi, code_span: code.span, value: v });
            }
        }
        if let Some(name) = name {
            check::string(self.c, &FIELD_TYPE, &path.key("name"), name);
        }
        let min_value = min.and_then(|m| integer(self.c, &GROUP_MIN, &path.key("min"), m, MIN_GROUP_MIN));
        let max_value = max.and_then(|m| integer(self.c, &GROUP_MAX, &path.key("max"), m, MIN_GROUP_MAX));
        if let (Some(lo), Some(hi), Some(min), Some(max)) = (min_value, max_value, min, max) {
            if hi < lo {
                self.c
                    .push(&GROUP_MAX_BELOW_MIN, &path.key("max"), max.span, format!("max ({hi}) must be at least min ({lo})"))
                    .related(&path.key("min"), min.span, "min is set here")
                    .help("raise max or lower min");
            }
        }
        let kind_value = kind.and_then(|k| check::one_of(self.c, &GROUP_TYPE, &path.key("type"), k, GROUP_TYPES, true));
        let radio = kind_value == Some(GroupType::Radio.as_str());
        if let (true, Some(hi), Some(max)) = (radio, max_value, max) {
            if hi > 1 {
                self.c
                    .push(&GROUP_RADIO_MAX, &path.key("max"), max.span, format!("a radio group allows one choice, but max is {hi}"))
                    .help(format!("use type \"{}\" for several choices, or set max to 1", GroupType::Checkbox));
            }
        }

        let options_path = path.key("options");
        let list = match options {
            None => {
                self.c
                    .push(&GROUP_NO_OPTIONS, path, Span::new(v.span.start, v.span.start + 1), "the modifier group has no options")
                    .help("add its options, or remove the group");
                return;
            }
            Some(o) => match check::array(self.c, &TREE_SHAPE, &options_path, o) {
                None => return,
                Some([]) => {
                    self.c
                        .push(&GROUP_NO_OPTIONS, &options_path, o.span, "the modifier group has no options")
                        .help("add its options, or remove the group");
                    return;
                }
                Some(list) => list,
            },
        };
        self.option_codes.clear();
        // Spans of the first two `isDefault: true`, and of the first one past `max`.
        let (mut defaults, mut first_default, mut second_default, mut past_max) = (0usize, None, None, None);
        for (oi, option) in list.iter().enumerate() {
            let option_path = options_path.index(oi);
            if self.full(&option_path, option.span) {
                return;
            }
            if let Some(span) = self.option(&option_path, ci, pi, gi, oi, option) {
                defaults += 1;
                match defaults {
                    1 => first_default = Some((oi, span)),
                    2 => second_default = Some((oi, span)),
                    _ => {}
                }
                if max_value.is_some_and(|hi| defaults as i64 == hi + 1) {
                    past_max = Some((oi, span));
                }
            }
        }
        if let (Some(lo), Some(min)) = (min_value, min) {
            if lo as u64 > list.len() as u64 {
                self.c
                    .push(
                        &GROUP_MIN_OVER_OPTIONS,
                        &path.key("min"),
                        min.span,
                        format!("min is {lo} but the group has only {} option{}: no order can satisfy it", list.len(), plural(list.len())),
                    )
                    .help("lower min or add options");
            }
        }
        if radio {
            if let (Some((first, first_span)), Some((second, span))) = (first_default, second_default) {
                self.c
                    .push(
                        &GROUP_RADIO_DEFAULTS,
                        &options_path.index(second).key("isDefault"),
                        span,
                        format!("a radio group allows one choice, but {defaults} options are isDefault"),
                    )
                    .related(&options_path.index(first).key("isDefault"), first_span, "first default")
                    .help("keep one default option in a radio group");
            }
        } else if let (Some((oi, span)), Some(hi), Some(max)) = (past_max, max_value, max) {
            self.c
                .push(
                    &GROUP_DEFAULTS_OVER_MAX,
                    &options_path.index(oi).key("isDefault"),
                    span,
                    format!("{defaults} options are isDefault but max is {hi}"),
                )
                .related(&path.key("max"), max.span, "max is set here")
                .help("keep at most max default options, or raise max");
        }
    }

    /// Checks an option; gives the span of `isDefault` when it is `true`.
    fn option(&mut self, path: &Path, ci: usize, pi: usize, gi: usize, oi: usize, v: &'d Value<'d>) -> Option<Span> {
        let members = check::object(self.c, &TREE_SHAPE, path, v)?;
        let ([code, name, price, is_default, max_per_order], unknown) = pick(members, &OPTION_FIELDS);
        if unknown {
            self.unknown_fields(path, v, members.len(), &OPTION_FIELDS, ENTITY_ALIASES);
        }
        if let (Some(s), Some(code)) = (self.remote_code(path, v, code), code) {
            if let Some((first, first_span)) = self.option_codes.first(s, (oi, code.span)) {
                let first_path = format!("{}.options[{first}]", path_to_group(ci, pi, gi));
                self.duplicate_code(
                    &UNIQUE_OPTION,
                    path,
                    code.span,
                    format!("option remoteCode \"{s}\" is already used by {first_path} in this group"),
                    &first_path,
                    first_span,
                );
            }
        }
        if let Some(name) = name {
            check::string(self.c, &FIELD_TYPE, &path.key("name"), name);
        }
        if let Some(price) = price {
            number(self.c, &FIELD_PRICE, &path.key("price"), price, MIN_PRICE, None);
        }
        if let Some(m) = max_per_order {
            if !m.is_null() {
                integer(self.c, &FIELD_MAX_PER_ORDER, &path.key("maxPerOrder"), m, MIN_MAX_PER_ORDER);
            }
        }
        let d = is_default?;
        check::boolean(self.c, &FIELD_TYPE, &path.key("isDefault"), d).filter(|b| *b).map(|_| d.span)
    }

    /// Compares a group declaration with the first one of the same remoteCode in another product.
    fn shared_group(&mut self, path: &Path, code: &'d str, here: GroupAt<'d>) {
        let first = match self.groups.entry(code) {
            Entry::Vacant(e) => {
                e.insert(here);
                return;
            }
            Entry::Occupied(e) => *e.get(),
        };
        // Declarations copied from one template are the same text: no need to look further.
        let text = |s: Span| self.input.get(s.start..s.end);
        if text(first.value.span) == text(here.value.span) {
            return;
        }
        let differences = group_differences(first.value, here.value);
        if differences.is_empty() {
            return;
        }
        let first_path = path_to_group(first.category, first.product, first.group);
        self.c
            .push(
                &SHARED_GROUP_MISMATCH,
                &path.key("remoteCode"),
                here.code_span,
                format!(
                    "modifier group \"{code}\" is shared with {first_path}, but the declarations differ in {}; only one definition survives",
                    differences.join(", ")
                ),
            )
            .related_at(&format!("{first_path}.remoteCode"), first.code_span, "first declared here")
            .help("products declaring a group with the same remoteCode share one brand-level group: declare it identically, or give the variants their own remoteCodes");
    }
}

/// [`check::integer`] with a lower bound, deciding the common valid case without formatting
/// anything (the helper builds its message eagerly); a bad value goes to the helper.
fn integer(c: &mut Collector, rule: &'static Rule, path: &Path, v: &Value, min: i64) -> Option<i64> {
    match v.as_number().and_then(json::Number::as_i64) {
        Some(i) if i >= min => Some(i),
        _ => check::integer(c, rule, path, v, Some(min), None),
    }
}

/// [`check::number`] with the same fast path as [`integer`].
fn number(c: &mut Collector, rule: &'static Rule, path: &Path, v: &Value, min: f64, max: Option<f64>) -> Option<f64> {
    match v.as_number() {
        Some(n) if n.value.is_finite() && n.value >= min && max.is_none_or(|m| n.value <= m) => Some(n.value),
        _ => check::number(c, rule, path, v, Some(min), max),
    }
}

fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

fn path_to_group(ci: usize, pi: usize, gi: usize) -> String {
    format!("categories[{ci}].products[{pi}].modifierGroups[{gi}]")
}

pub(crate) use crate::contract::is_remote_code_byte;

/// Why `s` is not a valid remoteCode, in words.
fn remote_code_problem(s: &str) -> String {
    if s.is_empty() {
        return "remoteCode must not be empty".to_string();
    }
    if let Some((i, ch)) = s.chars().enumerate().find(|&(_, ch)| !(ch.is_ascii() && is_remote_code_byte(ch as u8))) {
        let what = match ch {
            ' ' => "a space".to_string(),
            c if c.is_whitespace() || c.is_control() => format!("the character {c:?}"),
            c => format!("the character '{c}'"),
        };
        return format!(
            "remoteCode \"{}\" contains {what} at character {}: only letters, digits, '_', '.', '-' and ':' are allowed",
            short(s),
            i + 1
        );
    }
    format!("remoteCode is {} characters long, over the limit of {REMOTE_CODE_MAX_LEN}", s.chars().count())
}

/// `s` cut to 60 characters for messages.
fn short(s: &str) -> String {
    match s.char_indices().nth(60) {
        Some((i, _)) => format!("{}…", &s[..i]),
        None => s.to_string(),
    }
}

/// Structural equality, spans ignored: numbers by value, object members in any order (only in
/// the same order for objects of more than 32 members, to stay linear on hostile input).
fn same(a: &Value, b: &Value) -> bool {
    match (&a.kind, &b.kind) {
        (Kind::Null, Kind::Null) => true,
        (Kind::Bool(x), Kind::Bool(y)) => x == y,
        (Kind::Number(x), Kind::Number(y)) => x.value == y.value,
        (Kind::String(x), Kind::String(y)) => x == y,
        (Kind::Array(x), Kind::Array(y)) => x.len() == y.len() && x.iter().zip(y.iter()).all(|(p, q)| same(p, q)),
        (Kind::Object(x), Kind::Object(y)) if x.len() != y.len() => false,
        (Kind::Object(x), Kind::Object(y)) if x.iter().zip(y.iter()).all(|(p, q)| p.key == q.key) => {
            x.iter().zip(y.iter()).all(|(p, q)| same(&p.value, &q.value))
        }
        (Kind::Object(x), Kind::Object(_)) => x.len() <= 32 && x.iter().all(|m| b.get(m.key).is_some_and(|w| same(&m.value, w))),
        _ => false,
    }
}

/// An object's members by key; for a duplicated key the last one, as [`Value::get`] finds it.
fn last_by_key<'v, 'a>(members: &'v [json::Member<'a>]) -> HashMap<&'v str, &'v Value<'a>> {
    members.iter().map(|m| (m.key, &m.value)).collect()
}

/// A value for a message: `2`, `"Size"`, `absent`.
fn show(v: Option<&Value>) -> String {
    let Some(v) = v else { return "absent".into() };
    match &v.kind {
        Kind::Null => "null".into(),
        Kind::Bool(b) => b.to_string(),
        Kind::Number(n) => n.raw.to_string(),
        Kind::String(s) => format!("\"{}\"", short(s)),
        Kind::Array(a) => format!("{} item{}", a.len(), plural(a.len())),
        Kind::Object(_) => "an object".into(),
    }
}

/// The fields in which two declarations of one shared group differ, for the message:
/// `max (2 here, 1 there)`, `options[1].price (1.5 here, 1 there)`, `options (3 here, 2 there)`.
fn group_differences(first: &Value, here: &Value) -> Vec<String> {
    const MAX_LISTED: usize = 6;
    let mut out = Vec::new();
    for field in ["name", "min", "max", "type"] {
        let (a, b) = (first.get(field), here.get(field));
        let equal = match (a, b) {
            (None, None) => true,
            (Some(a), Some(b)) if field == "type" => match (a.as_str(), b.as_str()) {
                (Some(x), Some(y)) => x.eq_ignore_ascii_case(y),
                _ => same(a, b),
            },
            (Some(a), Some(b)) => same(a, b),
            _ => false,
        };
        if !equal {
            out.push(format!("{field} ({} here, {} there)", show(b), show(a)));
        }
    }
    let (a, b) = (first.get("options"), here.get("options"));
    match (a.and_then(Value::as_array), b.and_then(Value::as_array)) {
        (Some(x), Some(y)) if x.len() != y.len() => out.push(format!("options ({} here, {} there)", y.len(), x.len())),
        (Some(x), Some(y)) => {
            for (i, (p, q)) in x.iter().zip(y).enumerate() {
                if out.len() > MAX_LISTED {
                    break;
                }
                if same(p, q) {
                    continue;
                }
                match (p.as_object(), q.as_object()) {
                    (Some(pm), Some(qm)) => {
                        // Each side's members by key (the last one wins, as in `get`): one pass
                        // each, so a hostile option with many keys stays linear.
                        let (pk, qk) = (last_by_key(pm), last_by_key(qm));
                        let keys = pm.iter().map(|m| m.key).chain(qm.iter().map(|m| m.key).filter(|k| !pk.contains_key(k)));
                        let mut listed: std::collections::HashSet<&str> = std::collections::HashSet::new();
                        for key in keys {
                            if out.len() > MAX_LISTED {
                                break;
                            }
                            let (u, w) = (pk.get(key).copied(), qk.get(key).copied());
                            let equal = matches!((u, w), (Some(u), Some(w)) if same(u, w));
                            if !equal && listed.insert(key) {
                                out.push(format!("options[{i}].{} ({} here, {} there)", short(key), show(w), show(u)));
                            }
                        }
                    }
                    _ => out.push(format!("options[{i}]")),
                }
            }
        }
        _ => {
            if !matches!((a, b), (None, None)) && !matches!((a, b), (Some(x), Some(y)) if same(x, y)) {
                out.push(format!("options ({} here, {} there)", show(b), show(a)));
            }
        }
    }
    if out.len() > MAX_LISTED {
        out.truncate(MAX_LISTED);
        out.push("…".into());
    }
    out
}

#[cfg(test)]
mod tests;
