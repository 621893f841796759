#include "translator/probes/point_grammar.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <set>
#include <tuple>

#include "support/strings.h"
#include "translator/similar.h"
#include "translator/probes/probe_family.h"

namespace stapx {

namespace {

enum class ArgKind : uint8_t { None, Number, String };

const char* kind_text(ArgKind k) {
  switch (k) {
    case ArgKind::None: return "";
    case ArgKind::Number: return "(number)";
    case ArgKind::String: return "(string)";
  }
  return "";
}

ArgKind kind_of(const ast::ProbePointComponent& c) {
  if (!c.arg) return ArgKind::None;
  return c.arg->kind == ast::ExprKind::Number ? ArgKind::Number : ArgKind::String;
}

[[noreturn]] void bad_pattern(std::string_view text, const char* why) {
  std::fprintf(stderr, "stapx: internal error: probe point pattern '%.*s': %s\n", static_cast<int>(text.size()),
               text.data(), why);
  std::abort();
}

}  // namespace

struct PointGrammar::Node {
  struct Edge {
    std::string_view name;  // in the family's pattern text, which lives as long as the family
    ArgKind arg;
    std::unique_ptr<Node> next;
  };
  std::vector<Edge> edges;
  // Set where a pattern ends.
  const ProbeFamily* family = nullptr;
  int tag = 0;

  Node* find(std::string_view name, ArgKind arg) const {
    for (const Edge& e : edges)
      if (e.name == name && e.arg == arg) return e.next.get();
    return nullptr;
  }
};

PointGrammar::PointGrammar(const std::vector<const ProbeFamily*>& families) : root_(std::make_unique<Node>()) {
  for (const ProbeFamily* fam : families) {
    for (const PointPattern& p : fam->patterns()) {
      Node* at = root_.get();
      for (size_t from = 0; from <= p.text.size();) {
        size_t dot = from;
        // A component ends at a '.' outside its parentheses.
        while (dot < p.text.size() && p.text[dot] != '.' && p.text[dot] != '(') ++dot;
        std::string_view name = p.text.substr(from, dot - from);
        ArgKind arg = ArgKind::None;
        if (dot < p.text.size() && p.text[dot] == '(') {
          size_t close = p.text.find(')', dot);
          if (close == std::string_view::npos) bad_pattern(p.text, "unclosed '('");
          std::string_view kind = p.text.substr(dot + 1, close - dot - 1);
          if (kind == "number")
            arg = ArgKind::Number;
          else if (kind == "string")
            arg = ArgKind::String;
          else
            bad_pattern(p.text, "an argument is (number) or (string)");
          dot = close + 1;
        }
        if (name.empty()) bad_pattern(p.text, "empty component");
        Node* next = at->find(name, arg);
        if (!next) {
          at->edges.push_back(Node::Edge{name, arg, std::make_unique<Node>()});
          next = at->edges.back().next.get();
        }
        at = next;
        if (dot >= p.text.size()) break;
        if (p.text[dot] != '.') bad_pattern(p.text, "components are separated by '.'");
        from = dot + 1;
      }
      if (at->family) bad_pattern(p.text, "declared twice");
      at->family = fam;
      at->tag = p.tag;
      if (p.listed) listed_.emplace_back(p.text, fam);
    }
  }
}

PointGrammar::~PointGrammar() = default;

bool PointGrammar::knows(std::string_view first) const {
  for (const Node::Edge& e : root_->edges)
    if (e.name == first) return true;
  return false;
}

std::vector<std::string_view> PointGrammar::first_names() const {
  std::vector<std::string_view> out;
  for (const Node::Edge& e : root_->edges)
    if (std::find(out.begin(), out.end(), e.name) == out.end()) out.emplace_back(e.name);
  return out;
}

std::vector<std::string> PointGrammar::listed_patterns(bool unprivileged) const {
  std::vector<std::string> out;
  for (const auto& [text, family] : listed_)
    if (!unprivileged || family->unprivileged()) out.emplace_back(text);
  std::sort(out.begin(), out.end());
  return out;
}

PointGrammar::Result PointGrammar::match(const ast::ProbePoint& point, PointMatch& out, DiagSink& diags,
                                         const std::function<std::vector<std::string>()>& other_first_names) const {
  const auto& c = point.components;
  if (c.empty() || !knows(std::string_view(c[0].name))) return Result::Unknown;
  const Node* at = root_.get();
  for (size_t i = 0; i < c.size(); ++i) {
    if (const Node* next = at->find(std::string_view(c[i].name), kind_of(c[i]))) {
      at = next;
      continue;
    }
    if (point.optional) return Result::Mismatch;
    if (at->family) {
      diags.report(DiagId::SemPointSuffix, c[i].loc);
      return Result::Mismatch;
    }
    // The names this component could have, nearest first, as stap lists them.
    std::vector<std::tuple<size_t, size_t, std::string_view>> ranked;
    std::set<std::string_view> seen;
    std::vector<std::string> others;
    if (i == 0 && other_first_names) others = other_first_names();
    for (const Node::Edge& e : at->edges) others.emplace_back(e.name);
    for (const std::string& name : others)
      if (seen.insert(name).second)
        ranked.emplace_back(edit_distance(std::string_view(c[i].name), name), name.size(), name);
    std::sort(ranked.begin(), ranked.end());
    std::vector<std::string> names;
    for (size_t k = 0; k < ranked.size() && k < 5; ++k) names.emplace_back(std::get<2>(ranked[k]));
    diags.report(DiagId::SemPointMismatch, c[i].loc,
                 names.empty() ? std::string() : " (similar: " + support::join(names) + ")");
    return Result::Mismatch;
  }
  if (!at->family) {
    if (!point.optional) {
      std::vector<std::string> follow;
      for (const Node::Edge& e : at->edges) follow.push_back(" " + std::string(e.name) + kind_text(e.arg));
      std::sort(follow.begin(), follow.end());
      std::string text;
      for (const std::string& f : follow) text += f;
      diags.report(DiagId::SemPointTruncated, c.back().loc, text);
    }
    return Result::Mismatch;
  }
  out.family = at->family;
  out.tag = at->tag;
  out.point = &point;
  return Result::Matched;
}

std::string PointMatch::string_arg(size_t i) const {
  return std::string(static_cast<const ast::StringLit*>(component(i).arg)->value);
}

int64_t PointMatch::number_arg(size_t i) const { return static_cast<const ast::NumberLit*>(component(i).arg)->value; }

SourceLoc PointMatch::arg_loc(size_t i) const { return component(i).arg ? component(i).arg->loc : component(i).loc; }

const PointGrammar& probe_grammar() {
  static const PointGrammar grammar(probe_families());
  return grammar;
}

}  // namespace stapx
