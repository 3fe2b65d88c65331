//! Grammar contexts: rules with parameters and guarded alternatives, expanded into plain rules.
//!
//! As in the ECMAScript grammar (`Statement[Return]`, `[+Return]`, `[~In]`): a rule declares
//! parameters, `statement[return, loop] = ... ;`; an alternative may start with guards,
//! `[+return] return_stmt` (only where `return` is on) or `[~in]` (only where `in` is off); a
//! reference sets the parameters of the rule it names, `statement[+loop, ?return]` (`+p` on, `~p`
//! off, `?p` as in the referring rule; a parameter not mentioned is off). [`expand`] makes one
//! plain rule per combination that the grammar reaches, named `statement` when all parameters are
//! off and `statement[loop,return]` otherwise (the parameters that are on, in declaration order),
//! so the parser, miner, generator and reducers never see a parameter.

use std::collections::{HashMap, HashSet, VecDeque};

use super::diag::{Sink, Span};
use super::syntax::{AltAst, ArgMode, ExprAst, RuleAst};

/// The most parameters one rule may declare.
pub const MAX_PARAMS: usize = 16;
/// The most plain rules contexts may expand into; more is an error naming the rule.
pub const MAX_INSTANCES: usize = 20_000;

/// What expansion made of one rule with parameters (shown by `hellfuzz check`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Expansion {
    /// The rule as written.
    pub rule: String,
    /// Its parameters, in declaration order.
    pub params: Vec<String>,
    /// The plain rules made of it, in the order they were reached.
    pub instances: Vec<String>,
}

/// The plain rule name of `rule` with the parameters of `mask` on (`params[i]` is bit `i`).
pub fn instance_name(rule: &str, params: &[String], mask: u32) -> String {
    if mask == 0 {
        return rule.to_string();
    }
    let on: Vec<&str> = params
        .iter()
        .enumerate()
        .filter(|(i, _)| mask & (1 << i) != 0)
        .map(|(_, p)| p.as_str())
        .collect();
    format!("{rule}[{}]", on.join(","))
}

/// A symbol's name without its context arguments: `statement[return].2` → `statement.2`.
pub fn base_name(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    let mut depth = 0u32;
    for c in name.chars() {
        match c {
            '[' => depth += 1,
            ']' => depth = depth.saturating_sub(1),
            _ if depth == 0 => out.push(c),
            _ => {}
        }
    }
    out
}

/// Expands every rule with parameters into plain rules; rules without parameters are kept as
/// they are. `roots` are rule names used from outside the rules (`%layout`, `%lexeme`): their
/// all-off instances are made. Errors (undeclared parameters, unknown arguments, rules whose
/// every alternative is guarded out) go to `sink`.
pub(crate) fn expand(rules: Vec<RuleAst>, roots: &[&str], sink: &mut Sink) -> (Vec<RuleAst>, Vec<Expansion>) {
    let mut index: HashMap<String, usize> = HashMap::new();
    for (i, r) in rules.iter().enumerate() {
        index.entry(r.name.clone()).or_insert(i);
    }
    let params: Vec<Vec<String>> = rules
        .iter()
        .map(|r| r.params.iter().map(|(p, _)| p.clone()).collect())
        .collect();
    let mut contextual = false;
    for rule in &rules {
        if rule.params.len() > MAX_PARAMS {
            sink.error(
                rule.span,
                format!(
                    "rule `{}` declares {} parameters; at most {MAX_PARAMS} are supported",
                    rule.name,
                    rule.params.len()
                ),
            );
        }
        contextual |= !rule.params.is_empty();
        let mut check = Check {
            rule,
            params: &params,
            index: &index,
            sink,
            contextual: false,
        };
        check.alts(&rule.alts);
        contextual |= check.contextual;
    }
    if !contextual || sink.has_errors() {
        return (rules, Vec::new());
    }
    let mut ex = Expander {
        rules: &rules,
        params: &params,
        index: &index,
        instances: HashSet::new(),
        order: vec![Vec::new(); rules.len()],
        queue: VecDeque::new(),
        made: 0,
        sink,
        failed: false,
    };
    // The start rule first, then every rule without parameters and the roots, all off.
    ex.instance(0, 0, rules[0].span);
    for (i, r) in rules.iter().enumerate() {
        if r.params.is_empty() || roots.contains(&r.name.as_str()) {
            ex.instance(i, 0, r.span);
        }
    }
    let mut out_alts: HashMap<(usize, u32), Vec<AltAst>> = HashMap::new();
    loop {
        while let Some((rule, mask, used_at)) = ex.queue.pop_front() {
            if ex.failed {
                break;
            }
            let name = instance_name(&rules[rule].name, &params[rule], mask);
            let alts = ex.alts(&rules[rule].alts, rule, mask, &name);
            if alts.is_empty() {
                let r = &rules[rule];
                let mut message = format!("every alternative of `{}` is guarded out in `{name}`", r.name);
                if used_at.offset != r.span.offset {
                    message += &format!(" (used at line {}, column {})", used_at.line, used_at.col);
                }
                message += "; add an alternative without guards, or do not set its parameters this way";
                ex.sink.error(r.span, message);
                ex.failed = true;
            }
            out_alts.insert((rule, mask), alts);
        }
        if ex.failed {
            break;
        }
        // A rule with parameters that nothing reached still gets its all-off instance, so that
        // the analyses report it as unreachable instead of it vanishing silently.
        let unreached: Vec<usize> = (0..rules.len()).filter(|&i| ex.order[i].is_empty()).collect();
        if unreached.is_empty() {
            break;
        }
        for i in unreached {
            ex.instance(i, 0, rules[i].span);
        }
    }
    let failed = ex.failed;
    let order = ex.order;
    if failed {
        return (Vec::new(), Vec::new());
    }
    let mut out = Vec::new();
    let mut expansions = Vec::new();
    for (i, rule) in rules.iter().enumerate() {
        for &mask in &order[i] {
            out.push(RuleAst {
                name: instance_name(&rule.name, &params[i], mask),
                span: rule.span,
                params: Vec::new(),
                alts: out_alts.remove(&(i, mask)).unwrap_or_default(),
                end: rule.end,
            });
        }
        if !rule.params.is_empty() {
            expansions.push(Expansion {
                rule: rule.name.clone(),
                params: params[i].clone(),
                instances: order[i]
                    .iter()
                    .map(|&m| instance_name(&rule.name, &params[i], m))
                    .collect(),
            });
        }
    }
    (out, expansions)
}

/// Checks one rule's guards and arguments against the declarations.
struct Check<'a, 's> {
    rule: &'a RuleAst,
    params: &'a [Vec<String>],
    index: &'a HashMap<String, usize>,
    sink: &'s mut Sink,
    /// Whether the rule uses guards or arguments.
    contextual: bool,
}

impl Check<'_, '_> {
    fn alts(&mut self, alts: &[AltAst]) {
        for alt in alts {
            for g in &alt.guards {
                self.contextual = true;
                if !self.rule.params.iter().any(|(p, _)| *p == g.name) {
                    let sign = if g.on { '+' } else { '~' };
                    self.sink.error(
                        g.span,
                        format!(
                            "the guard `[{sign}{}]` names a parameter that rule `{}` does not declare; declare it: `{}[{}] = ... ;`",
                            g.name,
                            self.rule.name,
                            self.rule.name,
                            self.with_param(&g.name)
                        ),
                    );
                }
            }
            for item in &alt.items {
                self.expr(item);
            }
        }
    }

    /// The rule's parameter list with `extra` added, for a suggestion.
    fn with_param(&self, extra: &str) -> String {
        let mut ps: Vec<&str> = self.rule.params.iter().map(|(p, _)| p.as_str()).collect();
        ps.push(extra);
        ps.join(", ")
    }

    fn expr(&mut self, e: &ExprAst) {
        match e {
            ExprAst::Literal(_) | ExprAst::Class { .. } | ExprAst::Ref(..) => {}
            ExprAst::Group(alts, _) => self.alts(alts),
            ExprAst::Postfix(inner, _, _) => self.expr(inner),
            ExprAst::Except(l, r, _) => {
                self.expr(l);
                self.expr(r);
            }
            ExprAst::Call(name, _, args) => {
                self.contextual = true;
                let target = self.index.get(name).map(|&t| &self.params[t]);
                let mut seen: Vec<&str> = Vec::new();
                for arg in args {
                    if seen.contains(&arg.name.as_str()) {
                        self.sink.error(
                            arg.span,
                            format!("parameter `{}` is set twice in `{name}[...]`", arg.name),
                        );
                    }
                    seen.push(&arg.name);
                    match target {
                        // An undefined rule is reported by lowering, with a suggestion.
                        None => {}
                        Some(ps) if !ps.contains(&arg.name) => {
                            let has = if ps.is_empty() {
                                "it has no parameters".to_string()
                            } else {
                                format!("its parameters: {}", ps.join(", "))
                            };
                            self.sink.error(
                                arg.span,
                                format!("rule `{name}` has no parameter `{}` ({has})", arg.name),
                            );
                        }
                        Some(_) => {}
                    }
                    if arg.mode == ArgMode::Pass && !self.rule.params.iter().any(|(p, _)| *p == arg.name) {
                        self.sink.error(
                            arg.span,
                            format!(
                                "`?{}` passes on parameter `{}` of the rule it is in, but rule `{}` has no parameter `{}`; declare it (`{}[{}] = ... ;`) or write `+{}` or `~{}`",
                                arg.name,
                                arg.name,
                                self.rule.name,
                                arg.name,
                                self.rule.name,
                                self.with_param(&arg.name),
                                arg.name,
                                arg.name
                            ),
                        );
                    }
                }
            }
        }
    }
}

/// The worklist of instances and the rewriting of rule bodies for one instance.
struct Expander<'a, 's> {
    rules: &'a [RuleAst],
    params: &'a [Vec<String>],
    index: &'a HashMap<String, usize>,
    instances: HashSet<(usize, u32)>,
    /// Per rule, the masks of its instances in the order they were reached.
    order: Vec<Vec<u32>>,
    queue: VecDeque<(usize, u32, Span)>,
    made: usize,
    sink: &'s mut Sink,
    failed: bool,
}

impl Expander<'_, '_> {
    /// Makes sure instance (`rule`, `mask`) exists; `used_at` is the reference that needs it.
    fn instance(&mut self, rule: usize, mask: u32, used_at: Span) {
        if self.instances.contains(&(rule, mask)) || self.failed {
            return;
        }
        self.made += 1;
        if self.made > MAX_INSTANCES {
            self.sink.error(
                used_at,
                format!(
                    "contexts expand into more than {MAX_INSTANCES} rules (here `{}`); use fewer parameters or pass fewer of them on",
                    instance_name(&self.rules[rule].name, &self.params[rule], mask)
                ),
            );
            self.failed = true;
            return;
        }
        self.instances.insert((rule, mask));
        self.order[rule].push(mask);
        self.queue.push_back((rule, mask, used_at));
    }

    /// The alternatives that hold under `mask`, with every reference rewritten to an instance.
    fn alts(&mut self, alts: &[AltAst], rule: usize, mask: u32, name: &str) -> Vec<AltAst> {
        let params = &self.params[rule];
        let holds = |alt: &AltAst| {
            alt.guards.iter().all(|g| {
                let bit = params.iter().position(|p| *p == g.name).map_or(0, |i| mask >> i & 1);
                (bit == 1) == g.on
            })
        };
        let mut out = Vec::new();
        for alt in alts.iter().filter(|a| holds(a)) {
            out.push(AltAst {
                guards: Vec::new(),
                prec: alt.prec,
                weight: alt.weight,
                items: alt.items.iter().map(|e| self.expr(e, rule, mask, name)).collect(),
                span: alt.span,
            });
        }
        out
    }

    fn expr(&mut self, e: &ExprAst, rule: usize, mask: u32, name: &str) -> ExprAst {
        match e {
            ExprAst::Literal(_) | ExprAst::Class { .. } => e.clone(),
            ExprAst::Ref(target, span) => match self.index.get(target) {
                Some(&t) if !self.params[t].is_empty() => {
                    self.instance(t, 0, *span);
                    e.clone()
                }
                _ => e.clone(),
            },
            ExprAst::Call(target, span, args) => {
                let Some(&t) = self.index.get(target) else {
                    return ExprAst::Ref(target.clone(), *span);
                };
                let mut target_mask = 0u32;
                for arg in args {
                    let Some(bit) = self.params[t].iter().position(|p| *p == arg.name) else {
                        continue;
                    };
                    let on = match arg.mode {
                        ArgMode::On => true,
                        ArgMode::Off => false,
                        ArgMode::Pass => self.params[rule]
                            .iter()
                            .position(|p| *p == arg.name)
                            .is_some_and(|i| mask >> i & 1 == 1),
                    };
                    if on {
                        target_mask |= 1 << bit;
                    }
                }
                self.instance(t, target_mask, *span);
                ExprAst::Ref(instance_name(target, &self.params[t], target_mask), *span)
            }
            ExprAst::Group(alts, span) => {
                let kept = self.alts(alts, rule, mask, name);
                if kept.is_empty() && !self.failed {
                    self.sink.error(
                        *span,
                        format!("every alternative of this group is guarded out in `{name}`; add one without guards"),
                    );
                    self.failed = true;
                }
                ExprAst::Group(kept, *span)
            }
            ExprAst::Postfix(inner, q, span) => {
                ExprAst::Postfix(Box::new(self.expr(inner, rule, mask, name)), *q, *span)
            }
            ExprAst::Except(l, r, span) => ExprAst::Except(
                Box::new(self.expr(l, rule, mask, name)),
                Box::new(self.expr(r, rule, mask, name)),
                *span,
            ),
        }
    }
}
