// --remote's URLs (the forms stap's man page gives for ssh) and the child
// process helpers --remote drives ssh with.
#include <gtest/gtest.h>

#include "support/process.h"
#include "translator/remote/remote.h"

namespace stapx {
namespace {

RemoteUrl parsed(const std::string& url) {
  RemoteUrl u;
  std::string error;
  EXPECT_TRUE(parse_remote_url(url, u, error)) << url << ": " << error;
  return u;
}

std::string refused(const std::string& url) {
  RemoteUrl u;
  std::string error;
  EXPECT_FALSE(parse_remote_url(url, u, error)) << url;
  return error;
}

TEST(RemoteUrl, SshForms) {
  RemoteUrl u = parsed("ssh://root@db1.example:2222");
  EXPECT_EQ(u.dest, "root@db1.example");
  EXPECT_EQ(u.port, "2222");
  EXPECT_EQ(u.label, "root@db1.example:2222");
  u = parsed("ssh://db1/");
  EXPECT_EQ(u.dest, "db1");
  EXPECT_EQ(u.port, "");
  EXPECT_EQ(u.label, "db1");
  u = parsed("admin@db2");  // stap's [USER@]HOSTNAME
  EXPECT_EQ(u.dest, "admin@db2");
  EXPECT_EQ(u.label, "admin@db2");
  u = parsed("ssh://[::1]:22");
  EXPECT_EQ(u.dest, "::1");
  EXPECT_EQ(u.port, "22");
}

TEST(RemoteUrl, RefusesWhatSshCannotReach) {
  EXPECT_NE(refused("libvirt://dom/qemu:///system").find("through ssh"), std::string::npos);
  EXPECT_NE(refused("unix:/run/vm.sock").find("through ssh"), std::string::npos);
  EXPECT_NE(refused("ssh://host:0").find("invalid port '0'"), std::string::npos);
  EXPECT_NE(refused("ssh://host:99999").find("invalid port"), std::string::npos);
  EXPECT_NE(refused("ssh://root@").find("no host name"), std::string::npos);
  EXPECT_NE(refused("ssh://-oProxyCommand=x").find("no host name"), std::string::npos);
  EXPECT_NE(refused("ssh://[::1").find("brackets"), std::string::npos);
}

TEST(Process, ShellQuote) {
  EXPECT_EQ(support::shell_quote("plain"), "'plain'");
  EXPECT_EQ(support::shell_quote("it's"), "'it'\\''s'");
  EXPECT_EQ(support::shell_quote(""), "''");
}

TEST(Process, RunAllCollectsEachCommand) {
  std::vector<support::Finished> done = support::run_all(
      {{{"sh", "-c", "echo out; echo err >&2; exit 3"}, ""}, {{"cat"}, "/dev/null"}, {{"/nonexistent/tool"}, ""}});
  ASSERT_EQ(done.size(), 3u);
  EXPECT_EQ(done[0].status, 3);
  EXPECT_EQ(done[0].out, "out\n");
  EXPECT_EQ(done[0].err, "err\n");
  EXPECT_EQ(done[1].status, 0);
  EXPECT_EQ(done[1].out, "");
  EXPECT_EQ(done[2].status, -1);
  EXPECT_NE(done[2].err.find("cannot run /nonexistent/tool"), std::string::npos);
}

}  // namespace
}  // namespace stapx
