// Pass 4's last step with --sign-module[=KEYDIR]: the module signed with
// the user's key, for kernels that load only signed modules (Secure Boot,
// module.sig_enforce=1). The key is made once, with openssl, and its
// certificate is what the user enrolls (mokutil --import).
#pragma once

#include <optional>
#include <string>

#include "translator/build/kbuild.h"

namespace stapx {

struct SigningKey {
  std::string key;   // PEM private key
  std::string cert;  // DER X.509 certificate
  uint64_t id = 0;   // hash of the certificate: signed modules are cached by it
};

// The key in `dir` (~/.cache/stapx/signing when empty), made there first if
// it is not; nullopt after a one-line cause.
std::optional<SigningKey> signing_key(const std::string& dir, int verbose);

// `ko` signed with `key` by the kbuild tree's scripts/sign-file, cached
// beside it (signed-<id>/NAME.ko); nullopt after a one-line cause.
std::optional<std::string> sign_module(const std::string& ko, const SigningKey& key, const KernelTarget& kernel,
                                       int verbose);

}  // namespace stapx
