#pragma once
// kube-apiserver's --token-auth-file: CSV lines `token,user,uid[,"group1,group2"]`. Fields may
// be double-quoted ("" is a quote inside one); blank lines and lines starting with '#' are
// skipped. An empty or repeated token, fewer than three fields or a broken quote is an error
// naming the line.
#include <string>
#include <string_view>
#include <vector>

#include "core/util/error.hpp"
#include "server/auth/user_info.hpp"

namespace kw::auth {

struct TokenEntry {
  std::string token;
  UserInfo user;
};

// `source` names the file in error messages.
Result<std::vector<TokenEntry>> parse_token_file(std::string_view text, const std::string& source);

// One CSV record split into fields (RFC 4180 quoting), or an error saying what is wrong.
Result<std::vector<std::string>> split_csv_record(std::string_view line);

}  // namespace kw::auth
