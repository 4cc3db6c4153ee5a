// Kubernetes' IP and CIDR libraries: ip(), isIP(), ip.isCanonical(), family, isUnspecified,
// isLoopback, isLinkLocalMulticast, isLinkLocalUnicast, isGlobalUnicast; cidr(), isCIDR(),
// containsIP, containsCIDR, ip, masked, prefixLength; string() of both. Addresses are read as
// Go's netip reads them, without zones or IPv4-mapped IPv6 forms.
#include <arpa/inet.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <cstring>

#include "core/cel/functions.hpp"
#include "core/util/error.hpp"

namespace kw::cel {

namespace {

using Kind = Value::Kind;
using Args = std::span<const Value>;
using Style = Function::Style;

struct Address {
  bool v6 = false;
  std::array<unsigned char, 16> bytes = {};  // IPv4 in the first four

  std::size_t size() const { return v6 ? 16 : 4; }
  bool operator==(const Address& o) const {
    return v6 == o.v6 && std::memcmp(bytes.data(), o.bytes.data(), size()) == 0;
  }
  std::string text() const {
    char buf[INET6_ADDRSTRLEN] = {};
    inet_ntop(v6 ? AF_INET6 : AF_INET, bytes.data(), buf, sizeof buf);
    return buf;
  }
};

kw::Result<Address> parse_address(std::string_view text) {
  std::string s(text);
  Address a;
  if (inet_pton(AF_INET, s.c_str(), a.bytes.data()) == 1) return a;
  if (s.find('%') != std::string::npos) {
    return fail("IP address \"" + s + "\" with zone value is not allowed");
  }
  if (s.find(':') != std::string::npos && inet_pton(AF_INET6, s.c_str(), a.bytes.data()) == 1) {
    a.v6 = true;
    static constexpr unsigned char k_mapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
    if (std::memcmp(a.bytes.data(), k_mapped, 12) == 0) {
      return fail("IPv4-mapped IPv6 address \"" + s + "\" is not allowed");
    }
    return a;
  }
  return fail("IP Address \"" + s + "\" parse error during conversion from string: ParseAddr(\"" +
              s + "\"): unable to parse IP");
}

struct Prefix {
  Address address = {};
  int bits = 0;

  Address masked() const {
    Address out = address;
    for (std::size_t i = 0; i < out.size(); ++i) {
      int keep = std::clamp(bits - static_cast<int>(i) * 8, 0, 8);
      out.bytes[i] &= static_cast<unsigned char>(0xff00 >> keep);
    }
    return out;
  }
  bool contains(const Address& a) const {
    if (a.v6 != address.v6) return false;
    Prefix other{a, bits};
    return other.masked() == masked();
  }
};

kw::Result<Prefix> parse_prefix(std::string_view text) {
  std::string quoted = "network address \"" + std::string(text) + "\"";
  std::size_t slash = text.find('/');
  if (slash == std::string_view::npos) {
    return fail(quoted + " parse error during conversion from string: no '/'");
  }
  auto address = parse_address(text.substr(0, slash));
  if (!address) return fail(quoted + " parse error during conversion from string: " + address.error().message);
  std::string_view length = text.substr(slash + 1);
  int bits = -1;
  auto [end, ec] = std::from_chars(length.data(), length.data() + length.size(), bits);
  bool leading_zero = length.size() > 1 && length[0] == '0';
  if (ec != std::errc() || end != length.data() + length.size() || leading_zero || bits < 0 ||
      bits > static_cast<int>(address->size() * 8)) {
    return fail(quoted + " parse error during conversion from string: bad bits after slash: \"" +
                std::string(length) + "\"");
  }
  return Prefix{*address, bits};
}

class IpObject : public Object {
 public:
  explicit IpObject(Address a) : m_address(a) {}
  std::string_view type_name() const override { return "net.IP"; }
  bool equals(const Object& other) const override {
    auto* o = dynamic_cast<const IpObject*>(&other);
    return o != nullptr && o->m_address == m_address;
  }
  std::optional<std::string> text() const override { return m_address.text(); }
  const Address& address() const { return m_address; }

 private:
  Address m_address;
};

class CidrObject : public Object {
 public:
  explicit CidrObject(Prefix p) : m_prefix(p) {}
  std::string_view type_name() const override { return "net.CIDR"; }
  bool equals(const Object& other) const override {
    auto* o = dynamic_cast<const CidrObject*>(&other);
    return o != nullptr && o->m_prefix.address == m_prefix.address && o->m_prefix.bits == m_prefix.bits;
  }
  std::optional<std::string> text() const override {
    return m_prefix.address.text() + "/" + std::to_string(m_prefix.bits);
  }
  const Prefix& prefix() const { return m_prefix; }

 private:
  Prefix m_prefix;
};

template <class T>
const T* object_of(const Value& v) {
  return v.kind() == Kind::object ? dynamic_cast<const T*>(&v.as_object()) : nullptr;
}

Value wrap_ip(const Address& a) {
  return Value(std::shared_ptr<const Object>(std::make_shared<IpObject>(a)));
}
Value wrap_cidr(const Prefix& p) {
  return Value(std::shared_ptr<const Object>(std::make_shared<CidrObject>(p)));
}

Value ip(Args args, CallContext&) {
  if (args[0].kind() != Kind::string) return no_such_overload();
  auto a = parse_address(args[0].as_string());
  return a ? wrap_ip(*a) : Value::error(a.error().message);
}

Value is_ip(Args args, CallContext&) {
  if (args[0].kind() != Kind::string) return no_such_overload();
  return Value(parse_address(args[0].as_string()).has_value());
}

Value is_canonical(Args args, CallContext&) {
  if (args[0].kind() != Kind::string) return no_such_overload();
  auto a = parse_address(args[0].as_string());
  if (!a) return Value::error(a.error().message);
  return Value(a->text() == args[0].as_string());
}

bool zero_prefix(const std::array<unsigned char, 16>& bytes, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) {
    if (bytes[i] != 0) return false;
  }
  return true;
}

enum class Test { unspecified, loopback, link_local_multicast, link_local_unicast, global_unicast };

bool test(Test t, const Address& a) {
  const auto& b = a.bytes;
  bool zero = std::all_of(b.begin(), b.begin() + static_cast<long>(a.size()), [](unsigned char c) { return c == 0; });
  bool loopback = a.v6 ? (zero_prefix(b, 15) && b[15] == 1) : b[0] == 127;
  bool multicast = a.v6 ? b[0] == 0xff : (b[0] & 0xf0) == 0xe0;
  bool llu = a.v6 ? (b[0] == 0xfe && (b[1] & 0xc0) == 0x80) : (b[0] == 169 && b[1] == 254);
  switch (t) {
    case Test::unspecified: return zero;
    case Test::loopback: return loopback;
    case Test::link_local_multicast:
      return a.v6 ? (b[0] == 0xff && (b[1] & 0x0f) == 0x02) : (b[0] == 224 && b[1] == 0 && b[2] == 0);
    case Test::link_local_unicast: return llu;
    case Test::global_unicast: {
      bool broadcast = !a.v6 && b[0] == 255 && b[1] == 255 && b[2] == 255 && b[3] == 255;
      return !zero && !loopback && !multicast && !llu && !broadcast;
    }
  }
  return false;
}

template <Test T>
Value ip_test(Args args, CallContext&) {
  const auto* o = object_of<IpObject>(args[0]);
  if (o == nullptr) return no_such_overload();
  return Value(test(T, o->address()));
}

Value family(Args args, CallContext&) {
  const auto* o = object_of<IpObject>(args[0]);
  if (o == nullptr) return no_such_overload();
  return Value(std::int64_t{o->address().v6 ? 6 : 4});
}

Value cidr(Args args, CallContext&) {
  if (args[0].kind() != Kind::string) return no_such_overload();
  auto p = parse_prefix(args[0].as_string());
  return p ? wrap_cidr(*p) : Value::error(p.error().message);
}

Value is_cidr(Args args, CallContext&) {
  if (args[0].kind() != Kind::string) return no_such_overload();
  return Value(parse_prefix(args[0].as_string()).has_value());
}

Value contains_ip(Args args, CallContext&) {
  const auto* c = object_of<CidrObject>(args[0]);
  if (c == nullptr) return no_such_overload();
  if (const auto* o = object_of<IpObject>(args[1])) return Value(c->prefix().contains(o->address()));
  if (args[1].kind() != Kind::string) return no_such_overload();
  auto a = parse_address(args[1].as_string());
  if (!a) return Value::error(a.error().message);
  return Value(c->prefix().contains(*a));
}

Value contains_cidr(Args args, CallContext&) {
  const auto* c = object_of<CidrObject>(args[0]);
  if (c == nullptr) return no_such_overload();
  Prefix other;
  if (const auto* o = object_of<CidrObject>(args[1])) {
    other = o->prefix();
  } else if (args[1].kind() == Kind::string) {
    auto p = parse_prefix(args[1].as_string());
    if (!p) return Value::error(p.error().message);
    other = *p;
  } else {
    return no_such_overload();
  }
  return Value(other.bits >= c->prefix().bits && c->prefix().contains(other.address));
}

Value cidr_ip(Args args, CallContext&) {
  const auto* c = object_of<CidrObject>(args[0]);
  return c != nullptr ? wrap_ip(c->prefix().address) : no_such_overload();
}

Value masked(Args args, CallContext&) {
  const auto* c = object_of<CidrObject>(args[0]);
  if (c == nullptr) return no_such_overload();
  return wrap_cidr(Prefix{c->prefix().masked(), c->prefix().bits});
}

Value prefix_length(Args args, CallContext&) {
  const auto* c = object_of<CidrObject>(args[0]);
  return c != nullptr ? Value(std::int64_t{c->prefix().bits}) : no_such_overload();
}

}  // namespace

void add_ip_functions(Functions& f) {
  f.add({"ip", Style::global, 1, 1, ip});
  f.add({"ip", Style::receiver, 1, 1, cidr_ip});
  f.add({"isIP", Style::global, 1, 1, is_ip});
  f.add({"ip.isCanonical", Style::global, 1, 1, is_canonical});
  f.add({"family", Style::receiver, 1, 1, family});
  f.add({"isUnspecified", Style::receiver, 1, 1, ip_test<Test::unspecified>});
  f.add({"isLoopback", Style::receiver, 1, 1, ip_test<Test::loopback>});
  f.add({"isLinkLocalMulticast", Style::receiver, 1, 1, ip_test<Test::link_local_multicast>});
  f.add({"isLinkLocalUnicast", Style::receiver, 1, 1, ip_test<Test::link_local_unicast>});
  f.add({"isGlobalUnicast", Style::receiver, 1, 1, ip_test<Test::global_unicast>});
  f.add({"cidr", Style::global, 1, 1, cidr});
  f.add({"isCIDR", Style::global, 1, 1, is_cidr});
  f.add({"containsIP", Style::receiver, 2, 2, contains_ip});
  f.add({"containsCIDR", Style::receiver, 2, 2, contains_cidr});
  f.add({"masked", Style::receiver, 1, 1, masked});
  f.add({"prefixLength", Style::receiver, 1, 1, prefix_length});
}

}  // namespace kw::cel
