// netfilter.hook("HOOK").pf("PF"), netfilter.pf("PF").hook("HOOK"), each
// with an optional .priority("P"): a netfilter hook function per probe
// (runtime-c/probes/netfilter.c), with $hooknum, $skb, $in, $out and, in
// guru mode, $verdict. The names stap 4.8 takes, checked with stap -p2:
// a family's own hooks, NF_IP_PRI_* / NF_IP6_PRI_* or a decimal priority;
// with -g any identifier or number goes into the C as it is.
#include <algorithm>
#include <cctype>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <string>
#include <vector>

#include "translator/codegen/cwriter.h"
#include "translator/probes/probe_family.h"

namespace stapx {

namespace {

struct Hook : ProbeData {
  std::string pf, hook, priority;  // C text
  bool guru = false;
};

struct Family {
  const char* name;  // NFPROTO_...
  int number;
  const char* hook_prefix;  // the hooks' names are PREFIX + one of kHooks
  const char* alt_prefix;   // NF_IP_ beside NF_INET_ for IPv4
  const char* pri_prefix;   // NF_IP_PRI_ ..., or null: numbers only
};
constexpr Family kFamilies[] = {
    {"NFPROTO_IPV4", 2, "NF_INET_", "NF_IP_", "NF_IP_PRI_"},
    {"NFPROTO_IPV6", 10, "NF_IP6_", nullptr, "NF_IP6_PRI_"},
    {"NFPROTO_ARP", 3, "NF_ARP_", nullptr, nullptr},
    {"NFPROTO_BRIDGE", 7, "NF_BR_", nullptr, nullptr},
};
// Hook numbers by name; ARP has its own three.
const std::vector<std::string> kHooks = {"PRE_ROUTING", "LOCAL_IN", "FORWARD", "LOCAL_OUT", "POST_ROUTING"};
const std::vector<std::string> kArpHooks = {"IN", "OUT", "FORWARD"};
// The named priorities (the kernel's enums give the values); the
// connection-tracking confirmation is IPv4's only.
const std::vector<std::string> kPriorities = {"FIRST",    "CONNTRACK_DEFRAG", "RAW",        "SELINUX_FIRST",
                                              "CONNTRACK", "MANGLE",          "NAT_DST",    "FILTER",
                                              "SECURITY", "NAT_SRC",          "SELINUX_LAST", "LAST"};

// A decimal int, as stap reads a priority ("255", "-100", "+5").
bool decimal_int(const std::string& s) {
  if (s.empty()) return false;
  errno = 0;
  char* end = nullptr;
  long v = std::strtol(s.c_str(), &end, 10);
  return *end == '\0' && errno == 0 && v >= INT_MIN && v <= INT_MAX;
}

bool identifier(const std::string& s) {
  return !s.empty() && !std::isdigit(static_cast<unsigned char>(s[0])) &&
         std::all_of(s.begin(), s.end(), [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; });
}

class NetfilterFamily : public ProbeFamily {
 public:
  const char* name() const override { return "netfilter"; }
  std::vector<const char*> runtime_files() const override { return {"probes/netfilter.c"}; }
  std::vector<PointPattern> patterns() const override {
    return {{"netfilter.hook(string).pf(string)"},
            {"netfilter.pf(string).hook(string)"},
            {"netfilter.hook(string).pf(string).priority(string)"},
            {"netfilter.pf(string).hook(string).priority(string)"}};
  }

  void expand(const PointMatch& m, const ProbeSpec& base, const ProbeContext& ctx, std::vector<ProbeSpec>& out,
              DiagSink& diags) const override {
    std::string hook, pf, priority = "0";
    for (size_t i = 1; i < m.size(); ++i) {
      std::string_view c = m.component(i).name;
      (c == "hook" ? hook : c == "pf" ? pf : priority) = m.string_arg(i);
    }
    auto h = std::make_shared<Hook>();
    h->guru = ctx.guru;
    const Family* fam = nullptr;
    for (const Family& f : kFamilies)
      if (pf == f.name) fam = &f;
    // With -g any identifier or number stands for itself.
    auto verbatim = [&](const std::string& s) { return ctx.guru && (identifier(s) || decimal_int(s)); };
    if (!fam && !verbatim(pf)) {
      diags.report(DiagId::SemNetfilterName, m.point->loc, "protocol family", pf, "");
      return;
    }
    std::string in_family = fmt::format(" for protocol family \"{}\"", fam ? std::to_string(fam->number) : pf);
    h->pf = fam ? fam->name : pf;
    h->hook = verbatim(hook) ? hook : "";
    if (fam) {
      const auto& names = std::string_view(fam->name) == "NFPROTO_ARP" ? kArpHooks : kHooks;
      for (size_t k = 0; k < names.size(); ++k)
        if (hook == fam->hook_prefix + names[k] || (fam->alt_prefix && hook == fam->alt_prefix + names[k]))
          h->hook = std::to_string(k);
    }
    if (h->hook.empty()) {
      diags.report(DiagId::SemNetfilterName, m.point->loc, "hook", hook, in_family);
      return;
    }
    bool named = false;
    if (fam && fam->pri_prefix)
      for (const std::string& p : kPriorities)
        if (priority == fam->pri_prefix + p) named = true;
    if (fam && std::string_view(fam->name) == "NFPROTO_IPV4" && priority == "NF_IP_PRI_CONNTRACK_CONFIRM") named = true;
    if (!named && !decimal_int(priority) && !verbatim(priority)) {
      diags.report(DiagId::SemNetfilterName, m.point->loc, "priority", priority, in_family);
      return;
    }
    h->priority = decimal_int(priority) ? std::to_string(std::strtol(priority.c_str(), nullptr, 10)) : priority;
    ProbeSpec spec = base;
    spec.family = this;
    spec.data = std::move(h);
    out.push_back(std::move(spec));
  }

  bool has_context_vars() const override { return true; }
  std::optional<ContextVar> context_var(const ast::TargetExpr& t, const ProbeSpec& spec,
                                        DiagSink& diags) const override {
    static const char* const kVars[][2] = {{"$hooknum", "hooknum"}, {"$skb", "skb"}, {"$in", "in"},
                                           {"$out", "out"},         {"$verdict", "verdict"}};
    std::string field;
    for (const auto& v : kVars)
      if (t.base == v[0]) field = v[1];
    if (field.empty() || !t.components.empty() || !t.pretty.empty()) {
      diags.report(DiagId::SemNetfilterTarget, t.loc);
      return std::nullopt;
    }
    bool verdict = field == "verdict";
    if (verdict && !spec.data_as<Hook>().guru) {  // stap: reading it too
      diags.report(DiagId::SemNetfilterVerdict, t.loc);
      return std::nullopt;
    }
    std::string hit = "((struct _stpx_nf_hit *)c->family_data)->" + field;
    if (field == "skb" || field == "in" || field == "out") hit = "(unsigned long)" + hit;  // an address
    ContextVar v;
    v.c_expr = hit;
    v.readable = true;
    v.writable = verdict;
    return v;
  }

  void emit_tables(CWriter& w, const std::vector<const ProbeSpec*>& probes) const override {
    if (probes.empty()) return;
    auto b = w.block("static struct _stpx_nf_hook _stpx_nf_hooks[] =", "};");
    for (const ProbeSpec* p : probes) {
      const Hook& h = p->data_as<Hook>();
      w.line("{{ .probe = &_stpx_probes[{}], .ops = {{ .pf = {}, .hooknum = {}, .priority = {} }} }},", p->index, h.pf,
             h.hook, h.priority);
    }
  }
  void emit_arm(CWriter& w, const std::vector<const ProbeSpec*>& probes) const override {
    if (probes.empty()) return;
    emit_arm_call(w, "_stpx_nf_arm(_stpx_nf_hooks, ARRAY_SIZE(_stpx_nf_hooks))");
  }
  void emit_disarm(CWriter& w, const std::vector<const ProbeSpec*>& probes) const override {
    if (!probes.empty()) w.line("_stpx_nf_disarm(_stpx_nf_hooks, ARRAY_SIZE(_stpx_nf_hooks));");
  }
};

}  // namespace

const ProbeFamily& netfilter_family() {
  static const NetfilterFamily family;
  return family;
}

}  // namespace stapx
