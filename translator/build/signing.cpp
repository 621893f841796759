// Module signing: the user's key (made once with openssl) and kbuild's
// scripts/sign-file, which appends the PKCS#7 signature the kernel checks.
#include "translator/build/signing.h"

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>

#include <fmt/format.h>

#include "frontend/library.h"
#include "support/cache.h"

namespace stapx {

namespace fs = std::filesystem;

namespace {

constexpr const char* kKey = "signing_key.pem";
constexpr const char* kCert = "signing_key.x509";

std::string quoted(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

bool run(const std::string& cmd, int verbose) {
  if (verbose > 1) std::cerr << "Running " << cmd << "\n";
  int status = std::system(cmd.c_str());
  return status != -1 && WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

// A self-signed certificate for module signing, as the kernel's own
// certs/x509.genkey asks for one: no CA, digital signatures, code signing
// for modules (OID 1.3.6.1.4.1.2312.16.1.2).
bool make_key(const fs::path& dir, int verbose) {
  fs::path conf = dir / "x509.genkey";
  std::ofstream(conf) << "[ req ]\n"
                         "default_bits = 4096\n"
                         "distinguished_name = req_distinguished_name\n"
                         "prompt = no\n"
                         "string_mask = utf8only\n"
                         "x509_extensions = ext\n"
                         "[ req_distinguished_name ]\n"
                         "O = stapx\n"
                         "CN = stapx module signing key\n"
                         "[ ext ]\n"
                         "basicConstraints = critical,CA:FALSE\n"
                         "keyUsage = digitalSignature\n"
                         "extendedKeyUsage = 1.3.6.1.4.1.2312.16.1.2\n"
                         "subjectKeyIdentifier = hash\n"
                         "authorityKeyIdentifier = keyid\n";
  fs::path key = dir / (std::string(kKey) + ".tmp"), cert = dir / (std::string(kCert) + ".tmp");
  // (umask: the private key is the user's alone from its first byte.)
  mode_t old = umask(077);
  bool ok = run(fmt::format("openssl req -new -nodes -utf8 -sha256 -days 36500 -batch -x509 -config {} "
                            "-outform DER -out {} -keyout {} >/dev/null 2>&1",
                            quoted(conf.string()), quoted(cert.string()), quoted(key.string())),
                verbose);
  umask(old);
  std::error_code ec;
  if (ok) {
    fs::rename(key, dir / kKey, ec);
    if (!ec) fs::rename(cert, dir / kCert, ec);
  }
  return ok && !ec;
}

}  // namespace

std::optional<SigningKey> signing_key(const std::string& dir_arg, int verbose) {
  std::string root = support::cache_dir();
  if (dir_arg.empty() && root.empty()) {
    std::cerr << "stapx: no place for the module signing key: set HOME or XDG_CACHE_HOME, or give "
                 "--sign-module=KEYDIR\n";
    return std::nullopt;
  }
  fs::path dir = dir_arg.empty() ? fs::path(root) / "signing" : fs::path(dir_arg);
  std::error_code ec;
  if (!fs::exists(dir / kKey, ec) || !fs::exists(dir / kCert, ec)) {
    fs::create_directories(dir, ec);
    fs::permissions(dir, fs::perms::owner_all, ec);
    if (!make_key(dir, verbose)) {
      std::cerr << "stapx: cannot make a module signing key in " << dir.string()
                << " (openssl req failed; is openssl installed?)\n";
      return std::nullopt;
    }
    std::cerr << "stapx: made a module signing key in " << dir.string() << "; for Secure Boot, enroll its "
              << "certificate: mokutil --import " << (dir / kCert).string() << " (and reboot)\n";
  }
  SigningKey k{(dir / kKey).string(), (dir / kCert).string(), 0};
  Fnv id;
  id.add(read_text_file(k.cert));
  k.id = id.h;
  return k;
}

std::optional<std::string> sign_module(const std::string& ko, const SigningKey& key, const KernelTarget& kernel,
                                       int verbose) {
  fs::path built = ko;
  fs::path dir = built.parent_path() / fmt::format("signed-{:016x}", key.id);
  fs::path out = dir / built.filename();
  std::error_code ec;
  if (fs::exists(out, ec)) return out.string();
  fs::path tool = fs::path(kernel.kbuild_dir) / "scripts" / "sign-file";
  if (!fs::exists(tool, ec)) {
    std::cerr << "stapx: cannot sign the module: " << tool.string() << " is missing (the kernel's "
              << "linux-kbuild package has it)\n";
    return std::nullopt;
  }
  // The kernel's own choice of hash (its .config says it quoted).
  KernelConfig config = kernel_config(kernel);
  std::string hash = std::string(config.find("CONFIG_MODULE_SIG_HASH").value_or(""));
  if (hash.size() >= 2 && hash.front() == '"') hash = hash.substr(1, hash.size() - 2);
  if (hash.empty() || hash.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789-") != std::string::npos)
    hash = "sha256";
  fs::create_directories(dir, ec);
  fs::path tmp = dir / (built.filename().string() + ".tmp");
  fs::copy_file(built, tmp, fs::copy_options::overwrite_existing, ec);
  if (ec || !run(fmt::format("{} {} {} {} {}", quoted(tool.string()), hash, quoted(key.key), quoted(key.cert),
                             quoted(tmp.string())),
                 verbose)) {
    std::cerr << "stapx: cannot sign the module with " << key.key << " (" << tool.string() << " failed)\n";
    fs::remove(tmp, ec);
    return std::nullopt;
  }
  fs::rename(tmp, out, ec);
  if (ec) {
    std::cerr << "stapx: cannot write the signed module " << out.string() << ": " << ec.message() << "\n";
    return std::nullopt;
  }
  if (verbose) std::cerr << "Pass 4: signed the module with " << key.key << ".\n";
  return out.string();
}

}  // namespace stapx
