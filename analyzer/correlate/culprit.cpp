// The culprit: which rank the job's failure started from, reasoned over the rank table.
//
// The policy, in order (ARCHITECTURE.md has it in prose):
//  1. Candidates are the ranks that failed on their own: a signal their launcher did not send, an
//     exception, an exit code. Victims (a timeout, a lost peer) are not candidates; neither are
//     exits on a node whose timeout / lost-peer reports no prefix ties to a rank, when there are no
//     more such exits than such reports (plain logs: those exits are the reporters').
//  2. Of the candidates, the one whose own failure came first in time (to the second; the time of
//     its own line, its own error words included, else of its launcher's failure row or error
//     file). Tied: the order of one stream that shows each of them failing (first_in_one_stream).
//  3. Still tied: the one whose ending differs from the others' (one exit code 3 among exit codes
//     1); then the ending that says most (a kill or crash, an exception, an exit code).
//  4. No candidate, but ranks timed out or lost a peer: the one rank that reported neither (it hung,
//     stalled, was stopped by its launcher, or never arrived).
//  5. Everyone reported: the one rank that lost its peers among ranks that timed out (it came late).
//  6. No rank known: 4 and 5 over nodes (quiet_node); every node reported: the one node where fewer
//     processes printed such a traceback than it ran (short_node). A node of one rank names it.
// Several ranks left at any step: no culprit rank; their node when they share one.
#include <algorithm>
#include <cctype>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <tuple>
#include <utility>

#include "base/sentences.hpp"
#include "correlate/facts.hpp"
#include "formats/tables.hpp"
#include "formats/util.hpp"

namespace dtriage::correlate {

const char* basis_name(CulpritBasis b) {
  switch (b) {
    case CulpritBasis::FirstFailure: return "first-failure";
    case CulpritBasis::OnlyFailure: return "only-failure";
    case CulpritBasis::DistinctEnding: return "distinct-ending";
    case CulpritBasis::Recurring: return "recurring";
    case CulpritBasis::StrongerEnding: return "stronger-ending";
    case CulpritBasis::Silent: return "silent";
    case CulpritBasis::LateArrival: return "late-arrival";
    case CulpritBasis::OutOfStep: return "out-of-step";
    case CulpritBasis::Reported: return "desync-report";
  }
  return "only-failure";
}

namespace {

bool victim(Ending e) { return e == Ending::Timeout || e == Ending::PeerLost; }
bool own(Ending e) { return e == Ending::Signal || e == Ending::Exception || e == Ending::Exited; }

// The whole second of a line's time, or nullopt when the line has none.
std::optional<std::int64_t> second_of(const model::Event& e) { return e.time.second(); }

// What the rank's own failure was, in a few words ("ValueError: ...", "SIGKILL", "exit code 3").
std::string what(const RankRecord& r) {
  return r.detail.empty() ? ending_name(r.ending) : r.detail;
}

// How alike two endings are: the same kind and the same type, signal or exit code.
std::string signature(const RankRecord& r, const std::vector<model::Event>& ev) {
  switch (r.ending) {
    case Ending::Exception: return "exception " + (r.evidence ? ev[*r.evidence].get_str("exception") : std::string());
    case Ending::Signal: return "signal " + r.signal;
    case Ending::Exited: return "exit " + std::to_string(r.exit_code.value_or(0));
    default: return ending_name(r.ending);
  }
}

// How much an ending says of a failure of the rank's own, for ranks that failed in the same second:
// the OOM killer's or an unexplained SIGKILL > the rank's own traceback or an exit code of its own
// choosing > a crash signal (often a teardown after a peer failed) > exit code 1.
int strength(const RankRecord& r) {
  switch (r.ending) {
    case Ending::Signal: return r.sent_by == "oom-killer" ? 5 : r.signal == "SIGKILL" ? 4 : 2;
    case Ending::Exception: return 3;
    // An exit code other than 1 with no traceback is the program's own decision to fail
    // (sys.exit(3), exit(-1)): it says as much as a traceback. Code 1 is what any uncaught error,
    // a peer's loss included, ends with.
    case Ending::Exited: return r.exit_code.value_or(1) != 1 ? 3 : 1;
    default: return 0;
  }
}

// A kill the kernel log gives to the OOM killer: a failure of its own that says more than an
// exception. Any other SIGKILL may have followed another rank's failure (srun stopping a failed
// step's tasks, a scheduler's cancel, a launcher's escalation after its SIGTERM).
bool is_crash(std::string_view signal) { return signal == "SIGSEGV" || signal == "SIGBUS" || signal == "SIGFPE" || signal == "SIGILL"; }

bool oom_killed(const RankRecord& r) { return r.ending == Ending::Signal && r.sent_by == "oom-killer"; }

// Per node, the ranks its failure table names (its last attempt's rows): the workers its launcher
// found failed before it stopped the others.
using TableRanks = std::map<std::string, std::set<std::int64_t>, std::less<>>;

TableRanks failure_table_ranks(const Facts& f, const std::vector<model::Event>& ev) {
  TableRanks out;
  for (EventIndex i = 0; i < ev.size(); ++i)
    if (ev[i].code == "failure-row" && ev[i].rank && !ev[i].node.empty() && !f.is_replaced(i)) out[ev[i].node].insert(*ev[i].rank);
  return out;
}

struct Chooser {
  Facts& f;
  const std::vector<model::Event>& ev;
  const std::vector<std::uint8_t>& reports;
  // Plain output: the one node whose worker printed a traceback of its own that no line ties to a
  // rank (none of any other node, no rank's own exception known), and that traceback.
  std::string untied_node;
  std::optional<EventIndex> untied_traceback;
  // Nodes with more timeout or lost-peer reports that no line ties to a rank than ranks that only
  // exited with code 1: a rank that ended otherwise (a crash while it tore down) reported too.
  std::set<std::string> over_reported;
  const TableRanks table_ranks;  // node -> ranks its failure table names


  // Ranks tied in time, each with a line of its own failure (its own words, its traceback) or its
  // launcher's "failed (exitcode" line for it in one stream (a node's --tee file, one srun task's
  // lines): the one that stream shows first. Failure tables do not count (printed at the end, in
  // the launcher's order). Null when no stream holds them all, or two share the first line.
  const RankRecord* first_in_one_stream(const std::vector<const RankRecord*>& tied) const {
    using Stream = std::pair<std::string_view, std::string_view>;
    std::map<Stream, std::map<const RankRecord*, std::uint64_t>> at;
    for (EventIndex i = 0; i < ev.size(); ++i) {
      const model::Event& e = ev[i];
      if (f.is_replaced(i) || (i < reports.size() && reports[i] != 0)) continue;
      const bool launcher_line = e.code == "worker-failed";
      const bool own_line = own_traceback(e) || own_words(e);
      if (!launcher_line && !own_line) continue;
      for (const RankRecord* r : tied) {
        const bool mine = launcher_line ? (e.pid && e.node == r->node && std::binary_search(r->pids.begin(), r->pids.end(), *e.pid))
                                        : (e.rank ? *e.rank == r->rank
                                                  : (e.local_rank && r->local_rank && *e.local_rank == *r->local_rank && e.node == r->node));
        if (!mine) continue;
        auto [it, fresh] = at[{e.path, e.task}].emplace(r, e.line);
        if (!fresh) it->second = std::min(it->second, e.line);
      }
    }
    for (const auto& [stream, lines] : at) {
      if (lines.size() != tied.size()) continue;
      const RankRecord* best = nullptr;
      std::uint64_t best_line = 0;
      bool unique = true;
      for (const auto& [r, line] : lines) {
        if (best == nullptr || line < best_line) {
          best = r;
          best_line = line;
          unique = true;
        } else if (line == best_line) {
          unique = false;
        }
      }
      if (unique) return best;
    }
    return nullptr;
  }

  // A rank's own line of failing (its traceback, its own error words), whatever its ending; else
  // null (its failure is known from its launcher's lines only).
  const model::Event* own_line(const RankRecord& r) const {
    for (const std::optional<EventIndex>& i : {r.own_failure, r.evidence})
      if (i && (own_traceback(ev[*i]) || own_words(ev[*i]))) return &ev[*i];
    return nullptr;
  }

  // Whose lines these are within one file: the launcher's (srun task, pod) when two launchers
  // share it, else the rank's (global, else local).
  static std::string source_of(const model::Event& e, bool by_task) {
    if (by_task) return e.task;
    if (e.rank) return "r" + std::to_string(*e.rank);
    if (e.local_rank) return "l" + std::to_string(*e.local_rank);
    return "";
  }

  // True when `report` (a lost-peer report of another rank) comes before `own` (a rank's own
  // exception) in one file whose lines are in time order around them: the reporter's source
  // has a line after `own` and `own`'s source a line before `report` (a file made by
  // concatenating per-node or per-rank logs has neither).
  bool reported_before(const model::Event& report, const model::Event& own) const {
    if (report.path != own.path || report.line >= own.line) return false;
    const bool by_task = report.task != own.task;
    const std::string a = source_of(report, by_task), b = source_of(own, by_task);
    if (a.empty() || b.empty() || a == b) return false;
    bool reporter_after = false, own_before = false;
    for (EventIndex i = 0; i < ev.size() && !(reporter_after && own_before); ++i) {
      const model::Event& e = ev[i];
      if (e.path != own.path || f.is_replaced(i)) continue;
      if (!by_task && e.task != own.task) continue;
      const std::string s = source_of(e, by_task);
      if (s == a && e.line > own.line) reporter_after = true;
      if (s == b && e.line < report.line) own_before = true;
    }
    return reporter_after && own_before;
  }

  // True when both lines carry a clock read the same way (zone given or not on both) and `report`
  // is a second or more before `own`: more than clocks of one job's nodes drift or a launcher's
  // stamp lags.
  static bool dated_before(const model::Event& report, const model::Event& own) {
    const model::Time& a = report.time;
    const model::Time& b = own.time;
    if (!a.valid || !b.valid || a.zone_known != b.zone_known) return false;
    const std::int64_t shift = a.zone_known ? (std::int64_t{b.zone_minutes} - a.zone_minutes) * 60'000'000 : 0;
    return b.micros - shift - a.micros >= 1'000'000;
  }

  // The lost-peer report of another rank that `r`'s own exception came after (one time-ordered
  // file prints it first, or its clock is a second or more earlier), with where it is; null when
  // none: a rank had already gone when `r` raised.
  struct LossBefore {
    const model::Event* report = nullptr;
    std::string where;
  };
  LossBefore loss_before(const RankRecord& r) const {
    const model::Event* mine = own_line(r);
    if (mine == nullptr) return {};
    std::set<std::string> tried;  // reporters' sources in the file already tried (one scan each)
    for (EventIndex i = 0; i < ev.size() && i < reports.size(); ++i) {
      if ((reports[i] & kReportsPeerLoss) == 0 || (reports[i] & kReportsTimeout) != 0 || f.is_replaced(i)) continue;
      const model::Event& e = ev[i];
      const bool other = e.rank ? *e.rank != r.rank
                                : (e.node != r.node || (e.local_rank && r.local_rank && *e.local_rank != *r.local_rank));
      if (!other) continue;
      if (dated_before(e, *mine)) return {&e, base::say(base::Say::WhyAtTime, {{"time", e.time.text}})};
      if (e.path != mine->path || e.line >= mine->line) continue;
      if (!tried.insert(e.task + "\n" + source_of(e, e.task != mine->task)).second) continue;
      if (reported_before(e, *mine)) return {&e, base::say(base::Say::WhyLineOfOutput, {{"line", std::to_string(e.line)}})};
    }
    return {};
  }

  std::string after_loss_why(const RankRecord& late, const LossBefore& loss, const RankRecord& first) const {
    return base::say(base::Say::WhyAfterPeerLoss, {{"late", std::to_string(late.rank)},
                                                   {"latewhat", what(late)},
                                                   {"reporter", loss.report->node.empty() ? base::say(base::Say::WhyAnotherNode) : loss.report->node},
                                                   {"where", loss.where},
                                                   {"rank", std::to_string(first.rank)},
                                                   {"what", what(first)}});
  }

  // Of ranks tied in time, drops those whose own exception came after another rank's lost-peer
  // report (when one other is left), and says so in `order` when one is left.
  void drop_after_peer_loss(std::vector<const RankRecord*>& tied, std::string& order) const {
    std::vector<const RankRecord*> kept;
    const RankRecord* late = nullptr;
    LossBefore loss;
    for (const RankRecord* r : tied) {
      LossBefore l = loss_before(*r);
      if (l.report == nullptr) {
        kept.push_back(r);
      } else if (late == nullptr) {
        late = r;
        loss = std::move(l);
      }
    }
    if (late == nullptr || kept.empty()) return;
    if (kept.size() == 1) order = after_loss_why(*late, loss, *kept.front());
    tied = std::move(kept);
  }

  // Of ranks tied in time, drops those that printed progress after another tied rank's own line of
  // failing in a file both write to in time order (their first print there before that line, their
  // last after it): they were still running when it failed. Not one whose own line of failing comes
  // first in that file. Says so in `order` when one is left.
  void drop_alive_after(std::vector<const RankRecord*>& tied, std::string& order) const {
    auto mine = [](const model::Event& e, const RankRecord& r) {
      return e.rank ? *e.rank == r.rank : (e.local_rank && r.local_rank && *e.local_rank == *r.local_rank && e.node == r.node);
    };
    // Each tied rank's first own line of failing in each file.
    std::map<const RankRecord*, std::map<std::string_view, std::uint64_t>> failed_at;
    for (EventIndex i = 0; i < ev.size(); ++i) {
      const model::Event& e = ev[i];
      if (f.is_replaced(i) || (i < reports.size() && reports[i] != 0) || !(own_traceback(e) || own_words(e))) continue;
      for (const RankRecord* r : tied)
        if (mine(e, *r)) {
          auto [it, fresh] = failed_at[r].emplace(e.path, e.line);
          if (!fresh) it->second = std::min(it->second, e.line);
        }
    }
    std::vector<const RankRecord*> kept;
    const RankRecord *late = nullptr, *before = nullptr;
    const PrintSpan* shown = nullptr;
    std::uint64_t failed_line = 0;
    for (const RankRecord* b : tied) {
      bool alive_after = false;
      for (const auto& [a, lines] : failed_at) {
        if (a == b || alive_after) continue;
        for (const auto& [path, at] : lines) {
          const auto own_b = failed_at.find(b);
          if (own_b != failed_at.end())
            if (const auto l = own_b->second.find(path); l != own_b->second.end() && l->second < at) continue;
          for (const PrintSpan& s : b->prints)
            if (s.path == path && s.first < at && s.last > at) {
              alive_after = true;
              if (late == nullptr) {
                late = b;
                before = a;
                shown = &s;
                failed_line = at;
              }
              break;
            }
          if (alive_after) break;
        }
      }
      if (!alive_after) kept.push_back(b);
    }
    if (late == nullptr || kept.empty()) return;
    if (kept.size() == 1)
      order = base::say(base::Say::WhyAliveAfter, {{"late", std::to_string(late->rank)},
                                                   {"latewhat", what(*late)},
                                                   {"line", std::to_string(shown->last)},
                                                   {"rank", std::to_string(before->rank)},
                                                   {"at", std::to_string(failed_line)},
                                                   {"path", shown->path},
                                                   {"first", std::to_string(kept.front()->rank)},
                                                   {"what", what(*kept.front())}});
    tied = std::move(kept);
  }

  // torchrun's failure table lists the workers it found failed when it looked, before it stopped
  // the others (elastic's RunProcsResult holds only those): a tied rank missing from its node's
  // table (the last attempt's) while another tied rank of that node is in it failed after that
  // look, as it was being stopped. Dropped when a tied rank is left.
  void drop_outside_table(std::vector<const RankRecord*>& tied, std::string& order) const {
    drop_from_tie(tied, order, base::Say::WhyOutsideTable, [&](const RankRecord& r) {
      const auto it = table_ranks.find(r.node);
      return it != table_ranks.end() && it->second.count(r.rank) == 0 &&
             std::any_of(tied.begin(), tied.end(), [&](const RankRecord* t) { return t->node == r.node && it->second.count(t->rank) != 0; });
    });
  }

  // Drops the tied ranks `late` says came later, when a tied rank is left; with one left, `order`
  // says why in `say`'s words ({late} {latewhat} {node} of the first dropped, {first} {what} of it).
  template <typename Late>
  void drop_from_tie(std::vector<const RankRecord*>& tied, std::string& order, base::Say say, Late late) const {
    std::vector<const RankRecord*> kept, dropped;
    for (const RankRecord* r : tied) (late(*r) ? dropped : kept).push_back(r);
    if (dropped.empty() || kept.empty()) return;
    if (kept.size() == 1)
      order = base::say(say, {{"late", std::to_string(dropped.front()->rank)},
                              {"latewhat", what(*dropped.front())},
                              {"node", dropped.front()->node},
                              {"first", std::to_string(kept.front()->rank)},
                              {"what", what(*kept.front())}});
    tied = std::move(kept);
  }

  // Of ranks tied in time, drops one that died of a signal (not its launcher's stop, not the OOM
  // killer's) and is the only rank of its node to end otherwise than with code 1 or its
  // launcher's stop, on a node whose timeout / lost-peer reports that no line ties to a rank
  // outnumber its ranks that exited 1 (over_reported), one of them printed above its ending in
  // the same file: the report left over is read as its own, so it had lost a peer before it ended
  // (killed or aborted while it tore down), as said_why reads a crash there. (A neighbour stopped
  // by its launcher while tearing down may have printed it instead: the logs do not tell.) An
  // exit code of its own is not dropped: a traceback ends with code 1. Kept when no other tied
  // rank is left. Says so in `order` when one is left.
  void drop_own_report(std::vector<const RankRecord*>& tied, std::string& order) const {
    auto ended_on_its_own = [](const RankRecord& r) {
      return r.ending == Ending::Exception || (r.ending == Ending::Signal && !launcher_stop(r.signal)) ||
             (r.ending == Ending::Exited && r.exit_code.value_or(1) != 1);
    };
    // A report that no line ties to a rank, on r's node, above r's own ending's line in its file.
    auto reported_above = [&](const RankRecord& r) {
      if (!r.own_failure) return false;
      const model::Event& end = ev[*r.own_failure];
      for (EventIndex i = 0; i < ev.size() && i < reports.size(); ++i)
        if (reports[i] != 0 && !ev[i].rank && !ev[i].local_rank && !f.is_replaced(i) && ev[i].node == r.node && ev[i].path == end.path &&
            ev[i].line < end.line)
          return true;
      return false;
    };
    drop_from_tie(tied, order, base::Say::WhyOwnReportBefore, [&](const RankRecord& r) {
      if (r.ending != Ending::Signal || launcher_stop(r.signal) || oom_killed(r) || over_reported.count(r.node) == 0) return false;
      for (const RankRecord& o : f.rank_table)
        if (&o != &r && o.node == r.node && ended_on_its_own(o)) return false;
      return reported_above(r);
    });
  }

  // The first rank by time raised an exception after another rank's lost-peer report: the rank
  // that had gone is one whose failure only its launcher's line shows (a kill, a crash, an exit
  // with no words), whose time is when the launcher noticed it, up to kLauncherLag after the
  // report. The earliest such rank, or null.
  static constexpr std::int64_t kLauncherLag = 10;  // seconds: torchrun checks its workers every 0.1-5 s
  const RankRecord* gone_before(const RankRecord& x, const std::vector<const RankRecord*>& cand, const LossBefore& loss) const {
    const std::optional<std::int64_t> reported = loss.report->time.second();
    for (const RankRecord* y : cand) {
      if (y == &x || own_line(*y) != nullptr || y->ending == Ending::Exception || !y->own_failure) continue;
      const model::Event& seen = ev[*y->own_failure];
      if (own_traceback(seen) || own_words(seen)) continue;
      const std::optional<std::int64_t> at = seen.time.second();
      if (!at) continue;
      if (reported && (*at < *reported || *at - *reported > kLauncherLag)) continue;
      return y;
    }
    return nullptr;
  }

  std::string when(const RankRecord& r) const {
    if (!r.own_failure) return "";
    const std::string& t = ev[*r.own_failure].time.text;
    return t.empty() ? "" : base::say(base::Say::WhyAt, {{"time", t}});
  }

  void name(const RankRecord& r, CulpritBasis basis, std::vector<std::string> why, std::vector<EventIndex> evidence) {
    Culprit c;
    c.rank = r.rank;
    c.node = r.node;
    c.basis = basis;
    c.why = std::move(why);
    c.evidence = std::move(evidence);
    f.culprit = std::move(c);
    f.culprit_node = r.node;
  }

  // Exits with code 1 on nodes whose timeout / lost-peer reports name no rank, when they are no more
  // than those reports: each is taken as a reporter's exit, not a failure of its own. A report with a local
  // rank (its per-rank file, its [defaultN]: prefix) is that rank's, not one of these.
  // A report more than kLauncherLag after every such exit of its node (all timed) was printed by a
  // process still running after they had ended (their launcher tearing down, a restarted worker):
  // it is none of theirs.
  std::set<std::int64_t> plain_victims(std::vector<std::string>& why) {
    std::map<std::string, std::vector<std::int64_t>> exits;  // node -> ranks that only exited
    struct LastExit {
      std::int64_t second = std::numeric_limits<std::int64_t>::min();
      bool timed = true;  // every such exit of the node has a time
    };
    std::map<std::string, LastExit> last_exit;
    // A process that printed an uncaught traceback exits with code 1: another code (3, 255) is not
    // a reporter's exit.
    for (const RankRecord& r : f.rank_table)
      if (r.ending == Ending::Exited && r.exit_code.value_or(1) == 1) {
        exits[r.node].push_back(r.rank);
        LastExit& last = last_exit[r.node];
        if (const auto at = r.own_failure ? second_of(ev[*r.own_failure]) : std::nullopt) last.second = std::max(last.second, *at);
        else last.timed = false;
      }
    std::map<std::string, std::size_t> unranked, before;  // node -> reports no rank is known for (all; not after its exits)
    for (EventIndex i = 0; i < ev.size() && i < reports.size(); ++i) {
      if (reports[i] == 0 || ev[i].rank || ev[i].local_rank || f.is_replaced(i)) continue;
      unranked[ev[i].node] += interleaved(ev[i]);
      const auto last = last_exit.find(ev[i].node);
      const auto at = second_of(ev[i]);
      if (last != last_exit.end() && last->second.timed && at && *at > last->second.second + kLauncherLag) continue;
      before[ev[i].node] += interleaved(ev[i]);
    }
    for (const auto& [node, n] : unranked)
      if (const auto it = exits.find(node); n > (it == exits.end() ? 0 : it->second.size())) over_reported.insert(node);
    std::set<std::int64_t> out;
    for (const auto& [node, ranks] : exits) {
      const auto it = before.find(node);
      if (it == before.end() || ranks.size() > it->second) continue;
      out.insert(ranks.begin(), ranks.end());
      why.push_back(base::say(base::Say::WhyPlainVictims,
                              {{"count", std::to_string(ranks.size())}, {"node", node.empty() ? base::say(base::Say::WhyUnnamedNode) : node}}));
    }
    // Ranks with no line of their own (no pid known) on a node where reports name a pid that no
    // rank holds (Ray's driver log forwards "(NAME pid=N, ip=A)" lines with no rank; their ip gave
    // the node): when there are at least as many such pids as such ranks, each of those ranks
    // reported. (Fewer: which one did not is not known; they stay silent.)
    std::set<std::int64_t> held;
    for (const RankRecord& r : f.rank_table) held.insert(r.pids.begin(), r.pids.end());
    std::map<std::string, std::set<std::int64_t>> pid_reports;  // node -> such pids
    std::set<std::string> unpid;                                 // nodes with a report of no rank and no pid
    for (EventIndex i = 0; i < ev.size() && i < reports.size(); ++i) {
      const model::Event& e = ev[i];
      if (reports[i] == 0 || e.rank || e.local_rank || f.is_replaced(i) || e.node.empty()) continue;
      if (!e.pid) unpid.insert(e.node);
      else if (held.count(*e.pid) == 0) pid_reports[e.node].insert(*e.pid);
    }
    std::map<std::string, std::vector<std::int64_t>> unheard;  // node -> ranks with no pid and no ending
    for (const RankRecord& r : f.rank_table)
      if (r.pids.empty() && (r.ending == Ending::Running || r.ending == Ending::NeverHeardFrom)) unheard[r.node].push_back(r.rank);
    for (const auto& [node, pids] : pid_reports) {
      const auto it = unheard.find(node);
      if (unpid.count(node) != 0 || it == unheard.end() || pids.size() < it->second.size()) continue;
      out.insert(it->second.begin(), it->second.end());
      why.push_back(base::say(base::Say::WhyPidVictims, {{"count", std::to_string(it->second.size())}, {"node", node}}));
    }
    return out;
  }

  // How many processes' exception lines one line holds: processes that share a pipe and write an
  // exception's parts (type, ": ", message) in separate writes interleave them, and two timeouts at
  // once read "RuntimeErrorRuntimeError: : [...] Timed out ...[...] Timed out ...": the type repeated
  // n times is n records.
  static std::size_t interleaved(const model::Event& e) {
    const std::string& type = e.code;
    if (e.kind != model::Kind::Python || type.empty() || !std::isupper(static_cast<unsigned char>(type[0]))) return 1;
    for (std::size_t p = 1; p * 2 <= type.size(); ++p) {
      if (type.size() % p != 0) continue;
      bool periodic = true;
      for (std::size_t k = p; periodic && k < type.size(); ++k) periodic = type[k] == type[k - p];
      if (periodic) return type.size() / p;
    }
    return 1;
  }

  // A rank chosen at step 3, with the sentence that decided and, when not its own failure's, the
  // lines that show it.
  struct Pick {
    const RankRecord* rank = nullptr;
    CulpritBasis basis = CulpritBasis::FirstFailure;
    std::string why;
    std::vector<EventIndex> evidence;
  };

  // "what" of the tied ranks but those `chosen`, the first two and "..." for more; with
  // `named`, each as "rank N's what".
  static std::string others_of(const std::vector<const RankRecord*>& tied, const std::vector<const RankRecord*>& chosen,
                               bool named = false) {
    std::string others;
    std::size_t shown = 0;
    for (const RankRecord* r : tied) {
      if (std::find(chosen.begin(), chosen.end(), r) != chosen.end()) continue;
      if (shown++ == 2) {
        others += ", ...";
        break;
      }
      others += (shown > 1 ? ", " : "") +
                (named ? base::say(base::Say::WhyRankEnding, {{"rank", std::to_string(r->rank)}, {"what", what(*r)}}) : what(*r));
    }
    return others;
  }

  // The first line of rank `r`'s own (not its launcher's) that its output has after `tb` in the
  // same stream, before the next line of that stream's launcher (which notes the failure, or
  // restarts the workers: a restarted rank's lines are another process's): a kept line of its (by
  // rank, or by pid on its node), or its last progress print when that line has a time (a logging
  // record, written as it is made; a bare print may sit in a buffer until its process exits).
  std::optional<std::uint64_t> spoke_after(const RankRecord& r, const model::Event& tb) const {
    const std::uint64_t from = std::max(tb.line, tb.end_line);
    std::uint64_t until = UINT64_MAX;
    std::optional<std::uint64_t> first;
    for (EventIndex i = 0; i < ev.size(); ++i) {
      const model::Event& e = ev[i];
      if (e.path != tb.path || e.task != tb.task || e.line <= from || e.line >= until || f.is_replaced(i)) continue;
      if (e.kind == model::Kind::Torchrun) {
        until = e.line;
        continue;
      }
      const bool mine = e.rank ? *e.rank == r.rank
                               : e.pid && e.node == r.node && std::binary_search(r.pids.begin(), r.pids.end(), *e.pid);
      if (mine && (!first || e.line < *first)) first = e.line;
    }
    if (first && *first >= until) first.reset();
    if (r.progress && r.progress->time.valid && r.progress->path == tb.path && r.progress->line > from && r.progress->line < until &&
        (!first || r.progress->line < *first))
      first = r.progress->line;
    return first;
  }

  // Tied in time: exits with code 1 on the node of an untied traceback of a worker's own, beside
  // endings that may follow another's failure (a crash, often a teardown; a SIGKILL no line says the
  // OOM killer sent). That traceback is one of those exits' (an uncaught exception exits with code
  // 1), and an exception of the program's own follows no peer's death: the culprit is among them.
  // An uncaught exception ends its process: of those exits, one that still wrote a line of its own
  // after the traceback did not print it. One such exit is named; several are a tie on that node,
  // said as such. Exits alone (nothing else in the tie) are narrowed that way only.
  std::optional<Pick> untied_exception(const std::vector<const RankRecord*>& tied, std::vector<const RankRecord*>& among) const {
    if (untied_node.empty() || !untied_traceback) return std::nullopt;
    std::vector<const RankRecord*> exits;
    for (const RankRecord* r : tied) {
      if (r->node == untied_node && r->ending == Ending::Exited && r->exit_code.value_or(1) == 1) exits.push_back(r);
      else if (oom_killed(*r) || r->ending == Ending::Exception || (r->ending == Ending::Exited && r->exit_code.value_or(1) != 1)) return std::nullopt;
    }
    if (exits.empty()) return std::nullopt;
    const model::Event& tb = ev[*untied_traceback];
    std::vector<const RankRecord*> quiet;
    std::vector<std::int64_t> alive;
    std::optional<std::uint64_t> spoke;  // the first line of those
    for (const RankRecord* r : exits) {
      if (const auto l = spoke_after(*r, tb)) {
        alive.push_back(r->rank);
        if (!spoke || *l < *spoke) spoke = l;
      } else {
        quiet.push_back(r);
      }
    }
    const bool narrowed = !quiet.empty() && spoke.has_value();
    if (narrowed) exits = std::move(quiet);
    if (exits.size() == tied.size()) return std::nullopt;  // no other ending, nothing narrowed
    const std::string others = others_of(tied, exits, true);
    std::vector<std::int64_t> ranks;
    for (const RankRecord* r : exits) ranks.push_back(r->rank);
    const std::string exception = tb.get_str("exception");
    std::string why = narrowed && exits.size() == 1
                          ? base::say(base::Say::WhyUntiedSpokeAfter, {{"exception", exception},
                                                                       {"node", untied_node},
                                                                       {"alive", join_ints(alive)},
                                                                       {"path", tb.path},
                                                                       {"line", std::to_string(spoke.value_or(0))},
                                                                       {"rank", std::to_string(exits.front()->rank)},
                                                                       {"others", others}})
                          : base::say(base::Say::WhyUntiedException, {{"exception", exception},
                                                                      {"node", untied_node},
                                                                      {"ranks", join_ints(ranks)},
                                                                      {"others", others}});
    if (exits.size() == 1) return Pick{exits.front(), CulpritBasis::StrongerEnding, std::move(why), {*untied_traceback}};
    among = std::move(exits);
    return Pick{nullptr, CulpritBasis::StrongerEnding, std::move(why), {}};
  }

  // `failed` (a replaced attempt's "failed (exitcode: 1)" line of rank r's process) came in an
  // attempt whose launcher sent the closing signal to each other worker of r's node (so r's was the
  // one it found failed) and that printed the untied traceback's exception, untied, on r's node;
  // r exited 1 there now.
  bool first_alone_again(const RankRecord& r, EventIndex failed) const {
    if (!untied_traceback || r.node != untied_node || r.ending != Ending::Exited || r.exit_code.value_or(1) != 1) return false;
    if (ev[failed].get_int("exitcode").value_or(1) != 1) return false;
    const std::string type = ev[*untied_traceback].get_str("exception");
    const model::Event& fl = ev[failed];
    auto attempt_of = [&](EventIndex i) { return i < f.stream_attempt.size() ? f.stream_attempt[i] : 0; };
    const std::int64_t attempt = attempt_of(failed);
    const auto workers = std::count_if(f.rank_table.begin(), f.rank_table.end(), [&](const RankRecord& x) { return x.node == r.node; });
    std::set<std::int64_t> stopped;
    bool raised = false;
    for (EventIndex i = 0; i < ev.size(); ++i) {
      const model::Event& e = ev[i];
      if (!f.is_replaced(i) || e.rank || e.path != fl.path || e.node != fl.node || e.task != fl.task || attempt_of(i) != attempt) continue;
      if (e.code == "closing-signal")
        if (const auto t = e.get_int("target_pid"); t && t != fl.pid) stopped.insert(*t);
      if ((i >= reports.size() || reports[i] == 0) && own_traceback(e) && e.get_str("exception") == type) raised = true;
    }
    return raised && workers >= 2 && static_cast<std::int64_t>(stopped.size()) == workers - 1;
  }

  // The one of its kind among two or more of another (by type, signal or exit code).
  static std::optional<Pick> distinct_ending(const std::vector<const RankRecord*>& tied, const std::vector<model::Event>& ev) {
    std::map<std::string, std::vector<const RankRecord*>> by;
    for (const RankRecord* r : tied) by[signature(*r, ev)].push_back(r);
    const RankRecord* odd = nullptr;
    std::string common;
    std::size_t common_n = 0;
    int singles = 0;
    for (const auto& [sig, rs] : by) {
      if (rs.size() == 1) {
        ++singles;
        odd = rs.front();
      } else if (rs.size() > common_n) {
        common_n = rs.size();
        common = what(*rs.front());
      }
    }
    if (singles != 1 || common_n < 2) return std::nullopt;
    return Pick{odd, CulpritBasis::DistinctEnding,
                base::say(base::Say::WhyDistinct, {{"rank", std::to_string(odd->rank)},
                                                   {"what", what(*odd)},
                                                   {"count", std::to_string(tied.size() - 1)},
                                                   {"common", common}}),
                {}};
  }

  // A restarted job: of the tied ranks, the one whose process failed the same way in an attempt the
  // restart replaced (its earlier pid's "failed (exitcode" line or failure row with the same signal,
  // or an exit code other than 1 the same; a traceback of its own of the same type): the failure the
  // restart did not cure, where the others failed once. One such rank only.
  // Plain output, where the untied traceback's node exits with code 1: an earlier attempt in which
  // this rank's process was the only one its launcher found failed (its "failed (exitcode: 1)" line
  // names it, and it sent the closing signal to every other worker of the node: they were still
  // running) and the same untied exception came in that attempt.
  std::optional<Pick> recurring(const std::vector<const RankRecord*>& tied) const {
    const RankRecord* again = nullptr;
    std::optional<EventIndex> before;
    bool alone = false;  // found by first_alone_again
    for (const RankRecord* r : tied) {
      const std::string exception = r->ending == Ending::Exception && r->evidence ? ev[*r->evidence].get_str("exception") : std::string();
      for (EventIndex i = 0; i < ev.size(); ++i) {
        const model::Event& e = ev[i];
        if (!f.is_replaced(i)) continue;
        const bool own_pid = e.pid && std::find(r->pids.begin(), r->pids.end(), *e.pid) != r->pids.end();
        bool same = false;
        if ((e.code == "worker-failed" || e.code == "failure-row") && own_pid) {
          const auto code = e.get_int("exitcode");
          if (r->ending == Ending::Signal) same = !r->signal.empty() && e.get_str("signal") == r->signal;
          else if (r->ending == Ending::Exited) same = code && *code != 1 && r->exit_code == code;
        } else if (!exception.empty() && e.kind == model::Kind::Python && (own_pid || e.rank == r->rank)) {
          same = e.get_str("exception") == exception;
        }
        const bool first_alone = !same && e.code == "worker-failed" && own_pid && first_alone_again(*r, i);
        same = same || first_alone;
        if (!same) continue;
        if (again != nullptr && again != r) return std::nullopt;  // two recur: no telling
        again = r;
        before = i;
        alone = first_alone;
        break;
      }
    }
    if (again == nullptr) return std::nullopt;
    std::vector<EventIndex> evidence;
    if (again->own_failure) evidence.push_back(*again->own_failure);
    if (again->evidence && (!again->own_failure || *again->evidence != *again->own_failure)) evidence.push_back(*again->evidence);
    evidence.push_back(*before);
    if (alone) {
      evidence.push_back(*untied_traceback);
      return Pick{again, CulpritBasis::Recurring,
                  base::say(base::Say::WhyRecurringFirst, {{"exception", ev[*untied_traceback].get_str("exception")},
                                                           {"node", untied_node},
                                                           {"rank", std::to_string(again->rank)},
                                                           {"local", std::to_string(ev[*before].local_rank.value_or(0))},
                                                           {"path", ev[*before].path},
                                                           {"line", std::to_string(ev[*before].line)}}),
                  std::move(evidence)};
    }
    return Pick{again, CulpritBasis::Recurring,
                base::say(base::Say::WhyRecurring, {{"rank", std::to_string(again->rank)},
                                                    {"what", what(*again)},
                                                    {"others", others_of(tied, {again})}}),
                std::move(evidence)};
  }

  // One traceback among endings without one (the rank that said why it failed); among exit codes
  // alone, the one code that differs from the others' (3 among 1s), not beside a kill. Neither
  // beside the OOM killer's kill, which says more.
  std::optional<Pick> said_why(const std::vector<const RankRecord*>& tied) const {
    std::vector<const RankRecord*> exc, exits;
    for (const RankRecord* r : tied) {
      if (r->ending == Ending::Exception) exc.push_back(r);
      if (r->ending == Ending::Exited) exits.push_back(r);
    }
    // Beside a SIGKILL of no known sender (which may have followed), an exception of the program's
    // own (not a timeout, not a lost peer) came first: it cannot follow a peer's death.
    if (std::any_of(tied.begin(), tied.end(), [](const RankRecord* r) { return oom_killed(*r); })) return std::nullopt;
    const bool beside_kill = std::any_of(tied.begin(), tied.end(), [](const RankRecord* r) { return strength(*r) > 3; });
    // A crash (SIGSEGV, SIGBUS, SIGFPE, SIGILL) is the process's own fault as an exception is: no
    // peer's loss raises it, where the kill may have followed. (Not SIGABRT: a watchdog's abort
    // after a timeout ends that way. Not a crash on a node where it reported a lost peer first, as
    // a rank whose report is its own does, read then as a victim: a crash while tearing down.)
    if (exc.empty() && beside_kill) {
      std::vector<const RankRecord*> crashed;
      for (const RankRecord* r : tied)
        if (r->ending == Ending::Signal && is_crash(r->signal) && over_reported.count(r->node) == 0) crashed.push_back(r);
      if (crashed.size() == 1) exc = std::move(crashed);
    }
    if (exc.size() == 1)
      return Pick{exc.front(), CulpritBasis::StrongerEnding,
                  base::say(beside_kill ? base::Say::WhyOwnBeforeKill : base::Say::WhyStronger, {{"rank", std::to_string(exc.front()->rank)},
                                                     {"what", what(*exc.front())},
                                                     {"others", others_of(tied, exc)}}),
                  {}};
    if (!exc.empty() || exits.size() < 3 || beside_kill) return std::nullopt;
    std::map<std::int64_t, std::vector<const RankRecord*>> by_code;
    for (const RankRecord* r : exits) by_code[r->exit_code.value_or(0)].push_back(r);
    const RankRecord* single = nullptr;
    const RankRecord* usual = nullptr;
    int singles = 0;
    std::size_t most = 0;
    for (const auto& [code, rs] : by_code) {
      if (rs.size() == 1) {
        ++singles;
        single = rs.front();
      }
      if (rs.size() > most) {
        most = rs.size();
        usual = rs.front();
      }
    }
    if (singles != 1 || most < 2) return std::nullopt;
    return Pick{single, CulpritBasis::DistinctEnding,
                base::say(base::Say::WhyDistinct, {{"rank", std::to_string(single->rank)},
                                                   {"what", what(*single)},
                                                   {"count", std::to_string(exits.size() - 1)},
                                                   {"common", what(*usual)}}),
                {}};
  }

  // The ending that says most, when one rank alone has it.
  static std::optional<Pick> strongest(std::vector<const RankRecord*> tied) {
    std::stable_sort(tied.begin(), tied.end(), [](const RankRecord* a, const RankRecord* b) { return strength(*a) > strength(*b); });
    if (strength(*tied[0]) <= strength(*tied[1])) return std::nullopt;
    std::string others;
    for (std::size_t k = 1; k < tied.size() && k < 3; ++k) others += (k > 1 ? ", " : "") + what(*tied[k]);
    if (tied.size() > 3) others += ", ...";
    return Pick{tied[0], CulpritBasis::StrongerEnding,
                base::say(base::Say::WhyStronger, {{"rank", std::to_string(tied[0]->rank)}, {"what", what(*tied[0])}, {"others", others}}),
                {}};
  }

  // The candidates whose own failure came first: the same second, or no time at all. Two or more
  // in the same second that one stream shows in order: the first it shows, and `order` says so;
  // exceptions in one stream: the first of them.
  std::vector<const RankRecord*> first_in_time(std::vector<const RankRecord*>& cand, std::string& order) const {
    // A launcher's "failed (exitcode: N) local_rank: L" line names one failed worker (the lowest
    // local rank it found failed) when it has seen them all: its time is when the launcher looked.
    // A rank known only from it is timed as the others of its node are, by its failure-table row.
    std::map<std::int64_t, std::optional<std::int64_t>> row_time;  // rank -> its row's second
    for (EventIndex i = 0; i < ev.size(); ++i)
      if (ev[i].code == "failure-row" && ev[i].rank && !f.is_replaced(i) && row_time.count(*ev[i].rank) == 0)
        if (const auto t = second_of(ev[i])) row_time[*ev[i].rank] = t;
    // A traceback of a worker's own that no line ties to a rank was raised by one of its node's
    // ranks that exited 1: each of them may have failed as early as it was printed (they tie then,
    // for the traceback's reading to settle).
    const std::optional<std::int64_t> untied_at =
        !untied_node.empty() && untied_traceback ? second_of(ev[*untied_traceback]) : std::nullopt;
    auto own_at = [&](const RankRecord* r) -> std::optional<std::int64_t> {
      std::optional<std::int64_t> t;
      if (r->own_failure) {
        t = second_of(ev[*r->own_failure]);
        if (ev[*r->own_failure].code == "worker-failed")
          if (const auto row = row_time.find(r->rank); row != row_time.end()) t = row->second;
      }
      if (untied_at && r->node == untied_node && r->ending == Ending::Exited && r->exit_code.value_or(1) == 1 && (!t || *untied_at < *t))
        t = untied_at;
      return t;
    };
    // A candidate missing from its node's failure table while another candidate of that node is in
    // it failed after that one (drop_outside_table): it is not dated before it, whatever its own
    // line's time (a collector's stamp is when it printed; the row's second is when the launcher
    // looked, after the listed failure).
    auto at = [&](const RankRecord* r) -> std::optional<std::int64_t> {
      std::optional<std::int64_t> t = own_at(r);
      const auto it = table_ranks.find(r->node);
      if (!t || it == table_ranks.end() || it->second.count(r->rank) != 0) return t;
      for (const RankRecord* x : cand)
        if (x->node == r->node && it->second.count(x->rank) != 0)
          if (const auto tx = own_at(x); tx && *tx > *t) t = tx;
      return t;
    };
    std::map<const RankRecord*, std::optional<std::int64_t>> when;  // each candidate's at(), once
    for (const RankRecord* r : cand) when[r] = at(r);
    std::stable_sort(cand.begin(), cand.end(), [&](const RankRecord* a, const RankRecord* b) {
      const auto &ta = when[a], &tb = when[b];
      if (ta.has_value() != tb.has_value()) return ta.has_value();
      return ta < tb;
    });
    std::vector<const RankRecord*> first;
    for (const RankRecord* r : cand)
      if (when[r] == when[cand.front()] || !when[r]) first.push_back(r);
    if (first.size() >= 2) drop_after_peer_loss(first, order);
    if (first.size() >= 2) drop_alive_after(first, order);
    if (first.size() >= 2) drop_outside_table(first, order);
    if (first.size() >= 2) drop_own_report(first, order);
    if (first.size() == 1 && cand.size() >= 2) {
      const LossBefore loss = loss_before(*first.front());
      if (loss.report != nullptr)
        if (const RankRecord* y = gone_before(*first.front(), cand, loss)) {
          order = after_loss_why(*first.front(), loss, *y);
          first = std::vector<const RankRecord*>{y};
        }
    }
    if (first.size() >= 2)
      if (const RankRecord* r = first_in_one_stream(first)) {
        std::vector<std::int64_t> tied;
        for (const RankRecord* x : first) tied.push_back(x->rank);
        std::sort(tied.begin(), tied.end());
        const bool dated = std::all_of(first.begin(), first.end(), [&](const RankRecord* x) { return at(x).has_value(); });
        order = base::say(dated ? base::Say::WhyFirstInStream : base::Say::WhyFirstInStreamUndated,
                          {{"ranks", join_ints(tied)}, {"rank", std::to_string(r->rank)}, {"what", what(*r)}});
        first.assign(1, r);
      }
    if (first.size() >= 2 && std::all_of(first.begin(), first.end(), [&](const RankRecord* r) {
          return r->ending == Ending::Exception && r->evidence && ev[*r->evidence].path == ev[*first.front()->evidence].path;
        })) {
      const RankRecord* earliest = *std::min_element(first.begin(), first.end(), [&](const RankRecord* a, const RankRecord* b) {
        return ev[*a->evidence].line < ev[*b->evidence].line;
      });
      first.assign(1, earliest);
    }
    return first;
  }

  // Names the pick: the sentence that decided, then what the others did (the next candidate, else
  // how many were victims), on the lines given (by default its own failure's and its ending's).
  void choose(Pick p, const std::vector<const RankRecord*>& cand, std::size_t victims, const std::vector<std::string>& notes) {
    const RankRecord& r = *p.rank;
    // The other candidates: those that failed in the same second (a tie this pick broke), those
    // that failed later, and those with no time to compare (either line has none), each said with
    // the first of them.
    auto second = [&](const RankRecord& x) { return x.own_failure ? second_of(ev[*x.own_failure]) : std::nullopt; };
    std::vector<std::int64_t> passed;
    std::vector<const RankRecord*> same, later, unordered;
    for (const RankRecord* x : cand)
      if (x != &r) {
        passed.push_back(x->rank);
        (!second(r) || !second(*x) ? unordered : second(r) == second(*x) ? same : later).push_back(x);
      }
    std::vector<std::string> why{std::move(p.why)};
    why.insert(why.end(), notes.begin(), notes.end());
    for (const auto& [group, key] : {std::pair{&same, base::Say::WhySameSecond}, std::pair{&later, base::Say::WhyLater},
                                     std::pair{&unordered, base::Say::WhyUnordered}})
      if (!group->empty())
        why.push_back(base::say(key, {{"count", std::to_string(group->size())},
                                      {"rank", std::to_string(group->front()->rank)},
                                      {"what", what(*group->front())},
                                      {"when", when(*group->front())}}));
    if (passed.empty() && victims > 0)
      why.push_back(base::say(base::Say::WhyVictims, {{"count", std::to_string(victims)}}));
    if (p.evidence.empty()) {
      if (r.own_failure) p.evidence.push_back(*r.own_failure);
      if (r.evidence && (!r.own_failure || *r.evidence != *r.own_failure)) p.evidence.push_back(*r.evidence);
    }
    name(r, p.basis, std::move(why), std::move(p.evidence));
    f.culprit->passed_over = std::move(passed);
  }

  // No rank named: the tied ranks, and their node when they share one. The candidates outside the
  // tie (later in time, or ended less tellingly) are passed over as the root, as they are beside a
  // named culprit. Returns false (no culprit).
  bool tie_of(const std::vector<const RankRecord*>& tied, const std::vector<const RankRecord*>& cand) {
    for (const RankRecord* r : tied) f.culprit_tie.push_back(r->rank);
    std::sort(f.culprit_tie.begin(), f.culprit_tie.end());
    for (const RankRecord* r : cand)
      if (std::find(tied.begin(), tied.end(), r) == tied.end()) f.culprit_tie_passed.push_back(r->rank);
    if (std::all_of(tied.begin(), tied.end(), [&](const RankRecord* r) { return r->node == tied.front()->node; }))
      f.culprit_node = tied.front()->node;
    return false;
  }

  // Steps 2 and 3 over the candidates; true when one was named.
  bool from_own_failures(std::vector<const RankRecord*> cand, std::size_t victims, const std::vector<std::string>& notes) {
    std::string stream_order;  // the sentence that says which stream ordered the tied ranks
    const std::vector<const RankRecord*> first = first_in_time(cand, stream_order);
    if (first.size() == 1) {
      const RankRecord& r = *first.front();
      const bool only = cand.size() == 1;
      std::string why = !stream_order.empty() ? stream_order
                                              : base::say(only ? base::Say::WhyOnly : base::Say::WhyFirst,
                                                          {{"rank", std::to_string(r.rank)}, {"what", what(r)}, {"when", when(r)}});
      choose({&r, only && stream_order.empty() ? CulpritBasis::OnlyFailure : CulpritBasis::FirstFailure, std::move(why), {}}, cand, victims, notes);
      return true;
    }
    std::vector<const RankRecord*> among;
    std::optional<Pick> p = untied_exception(first, among);
    if (p && p->rank == nullptr) {  // one of several exits on the traceback's node: a tie said as such
      f.culprit_tie_why = std::move(p->why);
      return tie_of(among, cand);
    }
    if (!p) p = recurring(first);
    if (!p) p = distinct_ending(first, ev);
    if (!p) p = said_why(first);
    if (!p) p = strongest(first);
    // No first-observed pick: within one second a launcher's "Root Cause (first observed failure)"
    // row is its lowest local rank (elastic's failures tie on whole seconds), an order of numbering,
    // not of time. The tie is said as one (rank A or B, on their node).
    if (p) {
      choose(std::move(*p), cand, victims, notes);
      return true;
    }
    return tie_of(first, cand);  // ambiguous
  }

  // The one rank whose value is not everyone else's: exactly two values among the ranks, one held by
  // a single rank and the other by at least two. Returns that rank and the ranks of the common value.
  template <class Key>
  static std::optional<std::pair<std::int64_t, std::vector<std::int64_t>>> odd_one_out(const std::map<std::int64_t, Key>& by_rank) {
    std::map<Key, std::vector<std::int64_t>> groups;
    for (const auto& [rank, key] : by_rank) groups[key].push_back(rank);
    if (groups.size() != 2) return std::nullopt;
    auto one = groups.begin(), other = std::next(groups.begin());
    if (one->second.size() != 1) std::swap(one, other);
    if (one->second.size() != 1 || other->second.size() < 2) return std::nullopt;
    return std::make_pair(one->second.front(), other->second);
  }

  // Step 5, every rank timed out: the one rank whose timed-out collective is another than the one
  // every other rank timed out in. ProcessGroupNCCL numbers each process group's collectives
  // (WorkNCCL(SeqNum=N, OpType=OP), "Timeout at NCCL work: N"); ranks that wait for each other wait
  // at the same number in the same operation. One rank at the same number in another operation, or
  // one or two numbers apart in the same one, issued a collective more or fewer than the others (a
  // rank-dependent branch, uneven data): the ranks fell out of step there. Numbers of different
  // process groups ("[PG 1 Rank 3]") are not compared; farther numbers are not read as a step.
  bool out_of_step(const std::vector<const RankRecord*>& timed_out) {
    struct Work {
      std::string pg, op;
      std::int64_t seq = 0;
      EventIndex at = 0;
    };
    std::map<std::int64_t, Work> work;  // rank -> its first timed-out collective
    for (EventIndex i = 0; i < ev.size(); ++i) {
      const model::Event& e = ev[i];
      if (!e.rank || f.is_replaced(i) || work.count(*e.rank) != 0) continue;
      if (e.code != "watchdog-timeout" && e.code != "watchdog-work") continue;
      const auto seq = e.get_int("seq");
      if (!seq) continue;
      work[*e.rank] = Work{e.get_str("pg"), e.get_str("op_type"), *seq, i};
    }
    std::map<std::int64_t, std::tuple<std::string, std::int64_t, std::string>> key;  // the timed-out ranks'
    for (const RankRecord* r : timed_out)
      if (const auto w = work.find(r->rank); w != work.end()) key[r->rank] = std::tie(w->second.pg, w->second.seq, w->second.op);
    if (key.size() < 3 || key.size() != timed_out.size()) return false;
    const auto odd = odd_one_out(key);
    if (!odd) return false;
    const Work& o = work.at(odd->first);
    const Work& c = work.at(odd->second.front());
    const bool other_op = o.seq == c.seq && !o.op.empty() && !c.op.empty() && o.op != c.op;
    const bool other_step = o.op == c.op && o.seq != c.seq && std::abs(o.seq - c.seq) <= 2;
    if (o.pg != c.pg || !(other_op || other_step)) return false;
    auto what = [](const Work& w) {  // the log's own words: "SeqNum 5120" (an identifier, as printed)
      return w.op.empty() ? "SeqNum " + std::to_string(w.seq) : base::say(base::Say::DesyncCollective, {{"op", w.op}, {"seq", std::to_string(w.seq)}});
    };
    return name_out_of_step(odd->first, odd->second.size(), what(o), what(c),
                            base::say(base::Say::WhyOutOfStep, {{"count", std::to_string(odd->second.size())},
                                                                 {"common", what(c)},
                                                                 {"rank", std::to_string(odd->first)},
                                                                 {"what", what(o)}}),
                            {o.at, c.at});
  }

  // The same over how far each rank got: ProcessGroupNCCL's last enqueued work, as each rank's
  // watchdog or heartbeat monitor says it when one rank timed out ("Last enqueued NCCL work: N, last
  // completed NCCL work: M", every rank's, PyTorch 2.3+), its last such line. All ranks but one at
  // the same number, that one one or two apart: it issued a collective more (the others never
  // joined it) or fewer (the others wait in one it never reached).
  bool out_of_step_enqueued() {
    std::map<std::int64_t, std::pair<std::string, std::int64_t>> last;  // rank -> (process group, last enqueued)
    std::map<std::int64_t, EventIndex> at;                             // rank -> the line that said it
    for (EventIndex i = 0; i < ev.size(); ++i) {
      const model::Event& e = ev[i];
      // Said when the hang was seen (a timeout, the dump signal), not a periodic status line: those
      // of different ranks are printed at different moments.
      if (!e.rank || f.is_replaced(i) || (e.code != "watchdog-work" && e.code != "watchdog-dump")) continue;
      if (const auto n = e.get_int("last_enqueued")) {
        last[*e.rank] = {e.get_str("pg"), *n};
        at[*e.rank] = i;
      }
    }
    if (last.size() < 3) return false;
    const auto odd = odd_one_out(last);
    if (!odd) return false;
    const auto& [pg, n] = last.at(odd->first);
    const auto& [common_pg, common_n] = last.at(odd->second.front());
    if (pg != common_pg || n == common_n || std::abs(n - common_n) > 2) return false;
    return name_out_of_step(odd->first, odd->second.size(), "last enqueued NCCL work " + std::to_string(n),  // the log's words
                            "last enqueued NCCL work " + std::to_string(common_n),
                            base::say(base::Say::WhyEnqueuedOutOfStep, {{"count", std::to_string(odd->second.size())},
                                                                         {"common", std::to_string(common_n)},
                                                                         {"rank", std::to_string(odd->first)},
                                                                         {"what", std::to_string(n)}}),
                            {at.at(odd->first), at.at(odd->second.front())});
  }

  // Names the rank out of step and records what it and the others were at.
  bool name_out_of_step(std::int64_t rank, std::size_t common_ranks, std::string what, std::string common, std::string why,
                        std::vector<EventIndex> evidence) {
    const auto r = std::find_if(f.rank_table.begin(), f.rank_table.end(), [&](const RankRecord& x) { return x.rank == rank; });
    if (r == f.rank_table.end()) return false;
    f.desync_what = std::move(what);
    f.desync_common = std::move(common);
    f.desync_common_ranks = static_cast<std::int64_t>(common_ranks);
    name(*r, CulpritBasis::OutOfStep, {std::move(why)}, std::move(evidence));
    return true;
  }

  // Step 4, first: ProcessGroupNCCL's desync report (TORCH_NCCL_DESYNC_DEBUG=1). A rank whose
  // collective timed out read every rank's trace from the store and printed who lagged: ranks that
  // never joined any collective, joined the collective and did not finish it, or finished the one
  // before and never joined it. What it read of all ranks outweighs what we infer from their
  // endings. One rank named (all reports of the last attempt together) is the culprit; several are
  // a tie, on their node when they share one.
  bool desync_reported() {
    std::set<std::int64_t> named;
    const model::Event* first = nullptr;
    for (EventIndex i = 0; i < ev.size(); ++i) {
      const model::Event& e = ev[i];
      if (e.code != "desync-report" || f.is_replaced(i)) continue;
      const std::string list = e.get_str("lagging");
      for (std::size_t at = 0; at < list.size();) {
        const std::size_t end = std::min(list.find(',', at), list.size());
        if (const auto r = formats::to_int(formats::trim(std::string_view(list).substr(at, end - at)))) named.insert(*r);
        at = end + 1;
      }
      if (first == nullptr) first = &e;
      if (f.reported_evidence.size() < 4) f.reported_evidence.push_back(i);
    }
    if (first == nullptr || named.empty()) return false;
    for (const std::int64_t r : named) f.reported_lagging += (f.reported_lagging.empty() ? "" : ", ") + std::to_string(r);
    std::string_view what = formats::trim(first->message);
    while (!what.empty() && (what.front() == '-' || what.front() == ' ' || what.front() == '\t')) what.remove_prefix(1);
    f.reported_what = std::string(what);
    if (named.size() > 1) {
      f.culprit_tie.assign(named.begin(), named.end());
      std::set<std::string> nodes;
      for (const RankRecord& r : f.rank_table)
        if (named.count(r.rank) != 0) nodes.insert(r.node);
      if (nodes.size() == 1) f.culprit_node = *nodes.begin();
      return true;
    }
    const std::int64_t rank = *named.begin();
    const std::string why =
        first->rank ? base::say(base::Say::WhyDesyncReport, {{"reporter", std::to_string(*first->rank)}, {"rank", std::to_string(rank)}, {"what", f.reported_what}})
                    : base::say(base::Say::WhyDesyncReportUnranked, {{"rank", std::to_string(rank)}, {"what", f.reported_what}});
    const auto r = std::find_if(f.rank_table.begin(), f.rank_table.end(), [&](const RankRecord& x) { return x.rank == rank; });
    if (r != f.rank_table.end()) {
      name(*r, CulpritBasis::Reported, {why}, f.reported_evidence);
      return true;
    }
    Culprit c;  // a rank that wrote nothing the logs hold: known only from the report
    c.rank = rank;
    c.basis = CulpritBasis::Reported;
    c.why = {why};
    c.evidence = f.reported_evidence;
    f.culprit = std::move(c);
    return true;
  }

  // Step 1, first: TORCH_DISTRIBUTED_DEBUG=DETAIL's collective fingerprints. Before each
  // collective every rank gathers all ranks' fingerprints and raises at the first rank whose
  // fingerprint differs from its own ("Detected mismatch between collectives on ranks. Rank A is
  // running collective: ..., but Rank B is running collective: ..."): every rank fails on its own
  // in the same moment, the ranks in step name the one out of step, and that one names the first
  // other rank. The rank most reporters name ran the other collective; a tie names none.
  bool fingerprint_reported() {
    static constexpr std::string_view kSays = "Detected mismatch between collectives on ranks. Rank ";
    static constexpr std::string_view kBut = ", but Rank ";
    const auto number = [](std::string_view s) {
      std::size_t n = 0;
      while (n < s.size() && n < 9 && s[n] >= '0' && s[n] <= '9') ++n;
      return formats::to_int(s.substr(0, n));
    };
    std::map<std::int64_t, std::pair<std::int64_t, EventIndex>> named_by;  // reporter -> the rank it named, its line
    for (EventIndex i = 0; i < ev.size(); ++i) {
      const model::Event& e = ev[i];
      const std::size_t at = e.message.find(kSays);
      if (at == std::string::npos || f.is_replaced(i)) continue;
      const std::string_view rest = std::string_view(e.message).substr(at + kSays.size());
      const std::size_t but = rest.find(kBut);
      const auto reporter = number(rest);
      const auto peer = but == std::string_view::npos ? std::nullopt : number(rest.substr(but + kBut.size()));
      if (reporter && peer && *reporter != *peer) named_by.emplace(*reporter, std::make_pair(*peer, i));
    }
    std::map<std::int64_t, std::size_t> votes;
    for (const auto& [reporter, named] : named_by) ++votes[named.first];
    std::optional<std::int64_t> rank;
    std::size_t most = 0;
    bool tied = false;
    for (const auto& [peer, n] : votes) {
      if (n > most) {
        rank = peer;
        most = n;
        tied = false;
      } else if (n == most) {
        tied = true;
      }
    }
    if (!rank || tied) return false;
    // The reports that name it, in the order of their lines; the first one's words.
    std::vector<EventIndex> evidence;
    for (const auto& [reporter, named] : named_by)
      if (named.first == *rank) evidence.push_back(named.second);
    std::sort(evidence.begin(), evidence.end());
    const model::Event& first = ev[evidence.front()];
    const std::int64_t reporter = std::find_if(named_by.begin(), named_by.end(), [&](const auto& x) { return x.second.second == evidence.front(); })->first;
    std::string_view said = std::string_view(first.message).substr(first.message.find(kSays) + kSays.size() - 5);  // from "Rank "
    const std::string what(formats::trim(said.substr(0, std::min<std::size_t>(said.size(), 400))));
    if (evidence.size() > 4) evidence.resize(4);
    f.reported_lagging = std::to_string(*rank);
    f.reported_what = what;
    f.reported_evidence = evidence;
    const std::string why = base::say(base::Say::WhyFingerprintMismatch, {{"reporters", std::to_string(most)},
                                                                         {"reporter", std::to_string(reporter)},
                                                                         {"rank", std::to_string(*rank)},
                                                                         {"what", what}});
    const auto r = std::find_if(f.rank_table.begin(), f.rank_table.end(), [&](const RankRecord& x) { return x.rank == *rank; });
    if (r != f.rank_table.end()) {
      name(*r, CulpritBasis::Reported, {why}, evidence);
      return true;
    }
    Culprit c;  // a rank that wrote nothing the logs hold: known only from the others' reports
    c.rank = *rank;
    c.basis = CulpritBasis::Reported;
    c.why = {why};
    c.evidence = evidence;
    f.culprit = std::move(c);
    return true;
  }

  // Steps 4 and 5: inferred from what the others reported.
  void from_reports(const std::set<std::int64_t>& plain, std::size_t victims) {
    if (desync_reported()) return;
    std::vector<const RankRecord*> silent, timed_out, lost;
    for (const RankRecord& r : f.rank_table) {
      if (plain.count(r.rank) != 0) continue;
      if (r.ending == Ending::Timeout) timed_out.push_back(&r);
      else if (r.ending == Ending::PeerLost) lost.push_back(&r);
      else if (r.ending == Ending::Running || r.ending == Ending::Stopped || r.ending == Ending::NeverHeardFrom)
        silent.push_back(&r);
    }
    const std::string count = std::to_string(victims);
    if (silent.size() == 1) {
      const RankRecord& r = *silent.front();
      std::vector<EventIndex> evidence;
      if (r.evidence) evidence.push_back(*r.evidence);
      const std::string rank = std::to_string(r.rank);
      std::string why = r.ending == Ending::Stopped ? base::say(base::Say::WhySilentStopped, {{"count", count}, {"rank", rank}, {"signal", r.signal}})
                        : r.ending == Ending::Running ? base::say(base::Say::WhySilentRunning, {{"count", count}, {"rank", rank}})
                                                      : base::say(base::Say::WhySilentAbsent, {{"count", count}, {"rank", rank}});
      name(r, CulpritBasis::Silent, {std::move(why)}, std::move(evidence));
      return;
    }
    if (silent.empty() && lost.size() == 1 && !timed_out.empty()) {
      const RankRecord& r = *lost.front();
      std::vector<EventIndex> evidence;
      if (r.evidence) evidence.push_back(*r.evidence);
      name(r, CulpritBasis::LateArrival,
           {base::say(base::Say::WhyLate, {{"count", std::to_string(timed_out.size())}, {"rank", std::to_string(r.rank)}})}, std::move(evidence));
      return;
    }
    if (silent.empty() && out_of_step(timed_out)) return;
    if (out_of_step_enqueued()) return;
    if (!silent.empty() && std::all_of(silent.begin(), silent.end(), [&](const RankRecord* r) { return r->node == silent.front()->node; })) {
      f.culprit_node = silent.front()->node;
      // Several silent ranks, all on that node, and no worker's own traceback: the one the others
      // waited for is among them (a tie on that node).
      if (!f.culprit_node.empty() && !untied_traceback) {
        for (const RankRecord* r : silent) f.culprit_tie.push_back(r->rank);
        f.culprit_tie_why = base::say(base::Say::WhySilentTie, {{"count", count}, {"node", f.culprit_node}, {"ranks", join_ints(f.culprit_tie)}});
      }
    }
  }
};

// Every node reported, with no rank known: each process that waited in vain prints its own
// traceback (a timeout, a lost peer) as it exits. The one node where fewer did than it ran
// processes (--nproc_per_node), when every process of every other node did, holds the process the
// others waited for (timeouts), or the one that went away without a word (lost peers only).
void short_node(Facts& f, const std::vector<model::Event>& events, const std::vector<std::uint8_t>& reports) {
  std::map<std::string, std::int64_t> tracebacks;  // node -> report tracebacks no rank is known for
  std::map<std::string, std::vector<EventIndex>> lines;
  bool timeout = false;
  for (EventIndex i = 0; i < events.size() && i < reports.size(); ++i) {
    const model::Event& e = events[i];
    if (f.is_replaced(i)) continue;
    if (reports[i] == 0) {
      if (own_traceback(e) || own_words(e)) return;  // a worker said why itself
      // ... or its launcher did: a worker that died of a signal it did not send (exitcode -9,
      // -11: killed, crashed) is the one the others lost, and that is how it went away.
      if (e.code == "worker-failed")
        if (const auto code = e.get_int("exitcode"); code && *code < 0 && !launcher_stop(formats::signal_name(-*code)))
          return;
      continue;
    }
    timeout = timeout || (reports[i] & kReportsTimeout) != 0;
    if (!e.rank && e.kind == model::Kind::Python) {
      ++tracebacks[e.node];
      lines[e.node].push_back(i);
    }
  }
  // No timeout at all, only lost peers: the process that printed nothing went away itself.
  const Node* shorter = nullptr;
  for (const Node& n : f.nodes) {
    if (n.name.empty() || n.launch.empty()) continue;
    if (!n.nproc_per_node || *n.nproc_per_node <= 0) return;
    const std::int64_t count = tracebacks[n.name];
    if (count >= *n.nproc_per_node) continue;
    if (count == 0 || shorter != nullptr) return;
    shorter = &n;
  }
  // Silent ranks the launch implies may already point at a node: only that one.
  if (shorter == nullptr || (!f.culprit_node.empty() && f.culprit_node != shorter->name)) return;
  f.short_node = shorter->name;
  f.short_reported = tracebacks[shorter->name];
  f.short_procs = *shorter->nproc_per_node;
  f.short_kind = timeout ? "timeout" : "peer-lost";
  f.short_evidence = lines[shorter->name];
  f.culprit_node = shorter->name;
}

// Steps 4 and 5 by nodes, where no rank is known (c10d rendezvous numbers ranks by arrival, plain
// output names none), when no line anywhere shows a failure of a worker's own (an exception, a
// kill, a crash); the others' exits are their reporters'. Of the nodes whose launcher started, the
// one where no line reported a timeout or a lost peer; else the one whose ranks only lost their
// peers while the others timed out (they came late).
void quiet_node(Facts& f, const std::vector<model::Event>& events, const std::vector<std::uint8_t>& reports) {
  std::set<std::string> reporters, timed_out;
  for (EventIndex i = 0; i < events.size(); ++i) {
    const model::Event& e = events[i];
    if (f.is_replaced(i)) continue;
    if (i < reports.size() && reports[i] != 0) {
      reporters.insert(e.node);
      if ((reports[i] & kReportsTimeout) != 0) timed_out.insert(e.node);
      continue;
    }
    if (e.code == "oom-kill") return;
    if (e.code == "failure-row" || e.code == "worker-failed") {
      const std::string sig = e.get_str("signal");
      if (!sig.empty() && !launcher_stop(sig)) return;
    }
    if (own_traceback(e)) return;
  }
  if (reporters.empty()) return;
  std::vector<std::string> quiet, late;
  for (const Node& n : f.nodes) {
    if (n.name.empty() || n.launch.empty()) continue;
    if (reporters.count(n.name) == 0) quiet.push_back(n.name);
    else if (timed_out.count(n.name) == 0) late.push_back(n.name);
  }
  if (quiet.size() == 1) {
    f.quiet_node = quiet.front();
    f.culprit_node = quiet.front();
    // A node that ran one rank: that rank is the one that stayed silent.
    const Node* n = f.node(quiet.front());
    const RankRecord* only = nullptr;
    int ranks = 0;
    for (const RankRecord& r : f.rank_table)
      if (r.node == quiet.front()) {
        only = &r;
        ++ranks;
      }
    if (ranks == 1 && n != nullptr && n->nproc_per_node == 1) {
      Culprit c;
      c.rank = only->rank;
      c.node = only->node;
      c.basis = CulpritBasis::Silent;
      c.why = {base::say(base::Say::WhyQuietNodeRank, {{"count", std::to_string(reporters.size())}, {"node", only->node}, {"rank", std::to_string(only->rank)}})};
      if (only->evidence) c.evidence.push_back(*only->evidence);
      f.culprit = std::move(c);
    }
  } else if (quiet.empty() && late.size() == 1 && !timed_out.empty()) {
    f.late_node = late.front();
    f.culprit_node = late.front();
  }
}

// A node the reports point at (late_node, short_node) and a rank the rank table gives it: the one
// rank a late node ran; the one rank of a short node that no line shows ending (every other rank of
// it known, and each ended in a report or an exit).
void rank_of_node(Facts& f, std::size_t reporters) {
  const std::string& node = !f.late_node.empty() ? f.late_node : f.short_node;
  const Node* n = f.node(node);
  if (node.empty() || n == nullptr || !n->nproc_per_node) return;
  std::vector<const RankRecord*> here, silent;
  for (const RankRecord& r : f.rank_table)
    if (r.node == node) {
      here.push_back(&r);
      if (r.ending == Ending::Running || r.ending == Ending::Stopped || r.ending == Ending::NeverHeardFrom) silent.push_back(&r);
    }
  Culprit c;
  if (!f.late_node.empty()) {
    if (here.size() != 1 || *n->nproc_per_node != 1) return;
    c.rank = here.front()->rank;
    c.basis = CulpritBasis::LateArrival;
    c.why = {base::say(base::Say::WhyLateNodeRank, {{"count", std::to_string(reporters)}, {"node", node}, {"rank", std::to_string(c.rank)}})};
  } else {
    if (static_cast<std::int64_t>(here.size()) != *n->nproc_per_node || silent.empty()) return;
    // Several of its ranks stopped by the launcher with no line of their own: the ones that did not
    // report are among them, a tie on that node.
    const std::int64_t missing = static_cast<std::int64_t>(here.size()) - f.short_reported;
    if (silent.size() > 1 && missing >= 1 && missing < static_cast<std::int64_t>(silent.size()) && f.culprit_tie.empty()) {
      f.culprit_node = node;
      for (const RankRecord* r : silent) f.culprit_tie.push_back(r->rank);
      f.culprit_tie_why = base::say(base::Say::WhyShortNodeTie, {{"node", node},
                                                                 {"reported", std::to_string(f.short_reported)},
                                                                 {"procs", std::to_string(f.short_procs)},
                                                                 {"missing", std::to_string(missing)},
                                                                 {"ranks", join_ints(f.culprit_tie)}});
      return;
    }
    if (silent.size() != 1) return;
    c.rank = silent.front()->rank;
    c.basis = CulpritBasis::Silent;
    c.why = {base::say(base::Say::WhyShortNodeRank, {{"node", node},
                                                      {"reported", std::to_string(f.short_reported)},
                                                      {"procs", std::to_string(f.short_procs)},
                                                      {"rank", std::to_string(c.rank)}})};
  }
  const RankRecord& r = **std::find_if(here.begin(), here.end(), [&](const RankRecord* x) { return x->rank == c.rank; });
  c.node = node;
  if (r.evidence) c.evidence.push_back(*r.evidence);
  f.culprit = std::move(c);
}

}  // namespace

namespace {

void choose(Facts& f, const std::vector<model::Event>& events, const std::vector<std::uint8_t>& reports) {
  f.culprit.reset();
  f.culprit_node.clear();
  f.culprit_tie.clear();
  f.culprit_tie_why.clear();
  f.culprit_tie_passed.clear();
  Chooser c{f, events, reports, {}, {}, {}, failure_table_ranks(f, events)};
  std::vector<std::string> notes;
  const std::set<std::int64_t> plain = c.plain_victims(notes);
  // They reported, though no line ties their report to them: not among the ranks that never did.
  f.job.victims.insert(plain.begin(), plain.end());
  std::vector<const RankRecord*> cand;
  std::size_t victims = plain.size();
  for (const RankRecord& r : f.rank_table) {
    if (victim(r.ending)) ++victims;
    if (own(r.ending) && plain.count(r.rank) == 0) cand.push_back(&r);
  }
  // Plain output: a traceback of a worker's own (not a timeout or a lost peer) that no line ties to
  // a rank is one of its node's ranks. When no rank's own exception is known and such tracebacks
  // are on one node only, the candidates are that node's (its launcher's failure table orders them).
  {
    std::set<std::string> nodes;
    bool ranked_exception = false;
    for (const RankRecord& r : f.rank_table) ranked_exception = ranked_exception || r.ending == Ending::Exception;
    for (EventIndex i = 0; i < events.size(); ++i) {
      const model::Event& e = events[i];
      if (e.rank || f.is_replaced(i) || (i < reports.size() && reports[i] != 0) || !own_traceback(e)) continue;
      nodes.insert(e.node);
      if (!c.untied_traceback) c.untied_traceback = i;
    }
    if (!ranked_exception && nodes.size() == 1 && !nodes.begin()->empty()) {
      const std::string& node = *nodes.begin();
      c.untied_node = node;
      // Ranks elsewhere whose ending no uncaught traceback gives (a signal, an exit code other
      // than 1: the program's own choice) stay: they are failures of their own, for time to order.
      std::vector<const RankRecord*> here;
      for (const RankRecord* r : cand)
        if (r->node == node || !(r->ending == Ending::Exited && r->exit_code.value_or(1) == 1)) here.push_back(r);
      for (const RankRecord& r : f.rank_table)
        if (r.node == node && own(r.ending) && std::find(here.begin(), here.end(), &r) == here.end()) here.push_back(&r);
      if (!here.empty() && here.size() < cand.size() + plain.size()) {
        victims += cand.size() - std::min(cand.size(), here.size());
        cand = std::move(here);
      }
    }
  }
  if (c.fingerprint_reported()) return;
  if (!cand.empty()) {
    c.from_own_failures(std::move(cand), victims, notes);
    return;
  }
  if (victims > 0) c.from_reports(plain, victims);
  else c.desync_reported();  // the report alone (the timeouts' own lines not collected)
  if (!f.culprit && f.culprit_node.empty()) quiet_node(f, events, reports);
  if (!f.culprit && f.quiet_node.empty() && f.late_node.empty()) short_node(f, events, reports);
  if (!f.culprit && (!f.late_node.empty() || !f.short_node.empty())) {
    std::set<std::string> reporters;
    for (EventIndex i = 0; i < events.size() && i < reports.size(); ++i)
      if (reports[i] != 0 && !f.is_replaced(i)) reporters.insert(events[i].node);
    rank_of_node(f, reporters.size() - (reporters.count(f.late_node) != 0 ? 1 : 0));
  }
}

// A culprit no line names, or whose lines name only its local rank, placed on its node by c10d's
// order of host names (Node::rank_base_by_name): the why says how its rank was told.
void note_rank_by_name(Facts& f) {
  if (!f.culprit) return;
  const auto r = std::find_if(f.rank_table.begin(), f.rank_table.end(), [&](const RankRecord& x) { return x.rank == f.culprit->rank; });
  if (r == f.rank_table.end() || (r->ending != Ending::NeverHeardFrom && f.ranks_by_name.count(r->rank) == 0)) return;
  const auto here = std::find_if(f.nodes.begin(), f.nodes.end(), [&](const Node& n) { return n.name == f.culprit->node; });
  if (here == f.nodes.end() || !here->rank_base_by_name) return;
  std::string order;
  std::size_t shown = 0;
  for (const Node& n : f.nodes) {  // sorted by name, as the rendezvous sorts them
    if (!n.rank_base_by_name || !n.rank_base || !n.nproc_per_node) continue;
    if (shown++ == 6) {
      order += ", ...";
      break;
    }
    const std::int64_t first = *n.rank_base, last = *n.rank_base + *n.nproc_per_node - 1;
    order += (shown > 1 ? ", " : "") + n.name + " " + std::to_string(first) + (last > first ? "-" + std::to_string(last) : "");
  }
  const std::string rank = std::to_string(f.culprit->rank);
  f.culprit->why.push_back(r->ending == Ending::NeverHeardFrom || !r->local_rank
                               ? base::say(base::Say::WhyC10dOrder, {{"order", order}, {"node", here->name}, {"rank", rank}})
                               : base::say(base::Say::WhyC10dOrderLocal,
                                           {{"order", order}, {"node", here->name}, {"rank", rank}, {"local", std::to_string(*r->local_rank)}}));
}

}  // namespace

void choose_culprit(Facts& f, const std::vector<model::Event>& events, const std::vector<std::uint8_t>& reports) {
  choose(f, events, reports);
  note_rank_by_name(f);
}

}  // namespace dtriage::correlate
