// Kubernetes' CEL libraries, with the examples from their documentation: strings, lists, sets,
// regex, quantity, URL, IP and CIDR, and format.
#include <doctest/doctest.h>

#include <set>

#include "core/cel/authz.hpp"
#include "unit/cel/support.hpp"

using cel_test::is_true;
using cel_test::run;

TEST_CASE("strings: charAt, indexOf, lastIndexOf") {
  CHECK(run("'hello'.charAt(4)") == "\"o\"");
  CHECK(run("'hello'.charAt(5)") == "\"\"");
  CHECK(run("'hello'.charAt(6)") == "error: index out of range: 6");
  CHECK(run("'h\xC3\xA9llo'.charAt(1)") == "\"\xC3\xA9\"");
  CHECK(run("'hello mellow'.indexOf('')") == "0");
  CHECK(run("'hello mellow'.indexOf('ello')") == "1");
  CHECK(run("'hello mellow'.indexOf('jello')") == "-1");
  CHECK(run("'hello mellow'.indexOf('', 2)") == "2");
  CHECK(run("'hello mellow'.indexOf('ello', 2)") == "7");
  CHECK(run("'hello mellow'.indexOf('ello', 20)") == "error: index out of range: 20");
  CHECK(run("'\xC3\xA9\xC3\xA9x'.indexOf('x')") == "2");
  CHECK(run("'hello mellow'.lastIndexOf('')") == "12");
  CHECK(run("'hello mellow'.lastIndexOf('ello')") == "7");
  CHECK(run("'hello mellow'.lastIndexOf('jello')") == "-1");
  CHECK(run("'hello mellow'.lastIndexOf('ello', 6)") == "1");
  CHECK(run("'hello mellow'.lastIndexOf('ello', -1)") == "error: index out of range: -1");
}

TEST_CASE("strings: case, replace, split, substring, trim") {
  CHECK(run("'TacoCat'.lowerAscii()") == "\"tacocat\"");
  CHECK(run("'TacoC\xC3\x86t Xii'.lowerAscii()") == "\"tacoc\xC3\x86t xii\"");
  CHECK(run("'TacoCat'.upperAscii()") == "\"TACOCAT\"");
  CHECK(run("'hello hello'.replace('he', 'we')") == "\"wello wello\"");
  CHECK(run("'hello hello'.replace('he', 'we', -1)") == "\"wello wello\"");
  CHECK(run("'hello hello'.replace('he', 'we', 1)") == "\"wello hello\"");
  CHECK(run("'hello hello'.replace('he', 'we', 0)") == "\"hello hello\"");
  CHECK(run("'abc'.replace('', '-')") == "\"-a-b-c-\"");
  CHECK(run("'hello hello hello'.split(' ')") == "[\"hello\", \"hello\", \"hello\"]");
  CHECK(run("'hello hello hello'.split(' ', 0)") == "[]");
  CHECK(run("'hello hello hello'.split(' ', 1)") == "[\"hello hello hello\"]");
  CHECK(run("'hello hello hello'.split(' ', 2)") == "[\"hello\", \"hello hello\"]");
  CHECK(run("'hello hello hello'.split(' ', -1)") == "[\"hello\", \"hello\", \"hello\"]");
  CHECK(run("'abc'.split('')") == "[\"a\", \"b\", \"c\"]");
  CHECK(run("'a,b,'.split(',')") == "[\"a\", \"b\", \"\"]");
  CHECK(run("'tacocat'.substring(4)") == "\"cat\"");
  CHECK(run("'tacocat'.substring(0, 4)") == "\"taco\"");
  CHECK(run("'tacocat'.substring(-1)") == "error: index out of range: -1");
  CHECK(run("'tacocat'.substring(2, 1)") == "error: invalid substring range. start: 2, end: 1");
  CHECK(run("'\xC3\xA9t\xC3\xA9'.substring(1, 3)") == "\"t\xC3\xA9\"");
  CHECK(run("' \\ttrim\\n '.trim()") == "\"trim\"");
  CHECK(run("'\xE3\x80\x80x\xC2\xA0'.trim()") == "\"x\"");
  CHECK(run("'gums'.reverse()") == "\"smug\"");
}

TEST_CASE("strings: join and quote") {
  CHECK(run("['hello', 'mellow'].join()") == "\"hellomellow\"");
  CHECK(run("['hello', 'mellow'].join(' ')") == "\"hello mellow\"");
  CHECK(run("[].join('/')") == "\"\"");
  CHECK(run("[1].join()") == "error: no such overload");
  CHECK(run("strings.quote('single-quote with \"double quote\"')") ==
        R"("\"single-quote with \\\"double quote\\\"\"")");
  CHECK(run("strings.quote('a\\nb')") == R"("\"a\\nb\"")");
}

TEST_CASE("strings: format") {
  CHECK(run("'this is a string: %s\\nand an integer: %d'.format(['str', 42])") ==
        "\"this is a string: str\nand an integer: 42\"");
  CHECK(run("'%.2f'.format([1.2345])") == "\"1.23\"");
  CHECK(run("'%f'.format([2.5])") == "\"2.500000\"");
  CHECK(run("'%e'.format([1000.0])") == "\"1.000000e+03\"");
  CHECK(run("'%x %X'.format([255, 255])") == "\"ff FF\"");
  CHECK(run("'%x'.format(['Hi'])") == "\"4869\"");
  CHECK(run("'%b %o'.format([5, 8])") == "\"101 10\"");
  CHECK(run("'%s and %s'.format([[1, 2], {'a': true}])") == "\"[1, 2] and {a: true}\"");
  CHECK(run("'%s'.format([null])") == "\"null\"");
  CHECK(run("'100%%'.format([])") == "\"100%\"");
  CHECK(run("'%d'.format([])") == "error: index 0 out of range");
  CHECK(run("'%d'.format(['a'])") ==
        "error: error during formatting: decimal clause can only be used on integers, was given string");
}

TEST_CASE("lists: isSorted, sum, min, max, indexOf, lastIndexOf") {
  CHECK(run("[1, 2, 3].isSorted()") == "true");
  CHECK(run("['a', 'b', 'b', 'c'].isSorted()") == "true");
  CHECK(run("[2.0, 1.0].isSorted()") == "false");
  CHECK(run("[].isSorted()") == "true");
  CHECK(run("[1, 3].sum()") == "4");
  CHECK(run("[1.0, 3.5].sum()") == "4.5");
  CHECK(run("[].sum()") == "0");
  CHECK(run("[1u, 2u].sum()") == "3u");
  CHECK(run("[duration('1s'), duration('1m')].sum()") == "duration(\"61s\")");
  CHECK(run("['a'].sum()") == "error: no such overload");
  CHECK(run("[9223372036854775807, 1].sum()") == "error: integer overflow");
  CHECK(run("[1, 3].min()") == "1");
  CHECK(run("[1, 3].max()") == "3");
  CHECK(run("['a', 'c', 'b'].max()") == "\"c\"");
  CHECK(run("[].min()") == "error: min called on empty list");
  CHECK(run("[].max()") == "error: max called on empty list");
  CHECK(run("[1, 2, 2, 3].indexOf(2)") == "1");
  CHECK(run("['a', 'b', 'b', 'c'].lastIndexOf('b')") == "2");
  CHECK(run("[1.0].indexOf(1.1)") == "-1");
  CHECK(run("[[1], [2]].indexOf([2])") == "1");
}

TEST_CASE("lists: slice, flatten, distinct") {
  CHECK(run("[1, 2, 3, 4].slice(1, 3)") == "[2, 3]");
  CHECK(run("[1, 2].slice(2, 2)") == "[]");
  CHECK(run("[1, 2].slice(1, 3)") == "error: cannot slice(1, 3), list is length 2");
  CHECK(run("[1, [2, [3]]].flatten()") == "[1, 2, [3]]");
  CHECK(run("[1, [2, [3]]].flatten(2)") == "[1, 2, 3]");
  CHECK(run("[1, 2, 2, 1].distinct()") == "[1, 2]");
}

TEST_CASE("sets") {
  CHECK(run("sets.contains([1, 2, 3, 4], [2, 3])") == "true");
  CHECK(run("sets.contains([], [])") == "true");
  CHECK(run("sets.contains([1], [1.0, 1u])") == "true");
  CHECK(run("sets.contains([1], [2])") == "false");
  CHECK(run("sets.equivalent([1, 2, 3], [3u, 2.0, 1])") == "true");
  CHECK(run("sets.equivalent([1], [1, 2])") == "false");
  CHECK(run("sets.intersects([1], [1.0, 2])") == "true");
  CHECK(run("sets.intersects([1], [])") == "false");
}

TEST_CASE("regex: find and findAll") {
  CHECK(run("'abc 123'.find('[0-9]+')") == "\"123\"");
  CHECK(run("'abc 123'.find('xyz')") == "\"\"");
  CHECK(run("'123 abc 456'.findAll('[0-9]+')") == "[\"123\", \"456\"]");
  CHECK(run("'123 abc 456'.findAll('[0-9]+', 1)") == "[\"123\"]");
  CHECK(run("'123 abc 456'.findAll('xyz')") == "[]");
  CHECK(run("'abc'.findAll('')") == "[\"\", \"\", \"\", \"\"]");
  CHECK(run("'a'.find('[')").find("error: error parsing regexp") == 0);
}

TEST_CASE("quantity") {
  CHECK(is_true("isQuantity('1.3G')"));
  CHECK(is_true("isQuantity('1.3Gi')"));
  CHECK(is_true("!isQuantity('1,3G')"));
  CHECK(is_true("isQuantity('10000k')"));
  CHECK(is_true("!isQuantity('200K')"));
  CHECK(is_true("!isQuantity('Three')"));
  CHECK(is_true("isQuantity('Mi')"));  // Go reads a bare suffix as zero
  CHECK(run("quantity('Mi').sign()") == "0");
  CHECK(run("quantity('50k').sign()") == "1");
  CHECK(run("quantity('0').sign()") == "0");
  CHECK(run("quantity('-50k').sign()") == "-1");
  CHECK(is_true("quantity('50k').isInteger()"));
  CHECK(is_true("!quantity('9999999999999999999999999999999999999G').isInteger()"));
  CHECK(is_true("!quantity('50m').isInteger()"));
  CHECK(run("quantity('50k').asInteger()") == "50000");
  CHECK(run("quantity('1Ki').asInteger()") == "1024");
  CHECK(run("quantity('-2').asInteger()") == "-2");
  CHECK(run("quantity('50m').asInteger()") == "error: cannot convert value to integer");
  CHECK(run("quantity('50.703k').asApproximateFloat()") == "50703");
  CHECK(is_true("quantity('50k').add(quantity('20k')) == quantity('70k')"));
  CHECK(is_true("quantity('50k').add(20) == quantity('50020')"));
  CHECK(is_true("quantity('50.5Mi').sub(quantity('1Mi')) == quantity('49.5Mi')"));
  CHECK(is_true("quantity('50k').sub(20) == quantity('49980')"));
  CHECK(is_true("quantity('50k').isLessThan(quantity('100k'))"));
  CHECK(is_true("quantity('1Gi').isGreaterThan(quantity('1G'))"));
  CHECK(run("quantity('200M').compareTo(quantity('0.2G'))") == "0");
  CHECK(run("quantity('50M').compareTo(quantity('50Mi'))") == "-1");
  CHECK(is_true("quantity('200M') == quantity('0.2G')"));
  CHECK(is_true("quantity('1') != quantity('2')"));
  CHECK(run("type(quantity('1'))") == "kubernetes.Quantity");
  CHECK(run("quantity('abc')").find("error: quantities must match the regular expression") == 0);
  CHECK(run("quantity('1').add('1')") == "error: no such overload");
}

TEST_CASE("url") {
  CHECK(run("url('https://example.com:80/').getHost()") == "\"example.com:80\"");
  CHECK(run("url('https://[::1]:80/').getHost()") == "\"[::1]:80\"");
  CHECK(run("url('https://example.com/').getHostname()") == "\"example.com\"");
  CHECK(run("url('https://[::1]/').getHostname()") == "\"::1\"");
  CHECK(run("url('https://example.com:80/').getPort()") == "\"80\"");
  CHECK(run("url('https://example.com/').getPort()") == "\"\"");
  CHECK(run("url('https://example.com/path').getEscapedPath()") == "\"/path\"");
  CHECK(run("url('https://example.com/path with spaces/').getEscapedPath()") ==
        "\"/path%20with%20spaces/\"");
  CHECK(run("url('https://example.com/').getScheme()") == "\"https\"");
  CHECK(run("url('/path').getScheme()") == "\"\"");
  CHECK(is_true("url('https://example.com/path?k1=a&k2=b&k2=c').getQuery() == "
                "{'k1': ['a'], 'k2': ['b', 'c']}"));
  CHECK(is_true("url('/p?a=1+2&b=%21').getQuery() == {'a': ['1 2'], 'b': ['!']}"));
  CHECK(is_true("isURL('https://user:pass@example.com:80/path?query=val#fragment')"));
  CHECK(is_true("isURL('/absolute-path')"));
  CHECK(is_true("!isURL('../relative-path')"));
  CHECK(is_true("!isURL('')"));
  CHECK(run("url('../x')") ==
        "error: URL parse error during conversion from string: parse \"../x\": invalid URI for request");
  CHECK(run("type(url('/'))") == "kubernetes.URL");
  CHECK(is_true("url('https://a/b') == url('https://a/b')"));
}

TEST_CASE("ip") {
  CHECK(run("ip('127.0.0.1').family()") == "4");
  CHECK(run("ip('::1').family()") == "6");
  CHECK(is_true("isIP('1.2.3.4')"));
  CHECK(is_true("isIP('2001:db8::abcd')"));
  CHECK(is_true("!isIP('1.2.3.4/24')"));
  CHECK(is_true("!isIP('1.2.3')"));
  CHECK(is_true("!isIP('01.2.3.4')"));
  CHECK(is_true("!isIP('fe80::1%eth0')"));
  CHECK(is_true("!isIP('::ffff:1.2.3.4')"));
  CHECK(is_true("ip.isCanonical('127.0.0.1')"));
  CHECK(is_true("ip.isCanonical('2001:db8::abcd')"));
  CHECK(is_true("!ip.isCanonical('2001:DB8::ABCD')"));
  CHECK(is_true("!ip.isCanonical('2001:db8::0:0:0:abcd')"));
  CHECK(is_true("ip('127.0.0.1').isLoopback()"));
  CHECK(is_true("ip('::1').isLoopback()"));
  CHECK(is_true("!ip('128.0.0.1').isLoopback()"));
  CHECK(is_true("ip('0.0.0.0').isUnspecified()"));
  CHECK(is_true("ip('::').isUnspecified()"));
  CHECK(is_true("ip('224.0.0.1').isLinkLocalMulticast()"));
  CHECK(is_true("!ip('224.0.1.1').isLinkLocalMulticast()"));
  CHECK(is_true("ip('ff02::1').isLinkLocalMulticast()"));
  CHECK(is_true("ip('169.254.169.254').isLinkLocalUnicast()"));
  CHECK(is_true("ip('fe80::1').isLinkLocalUnicast()"));
  CHECK(is_true("ip('192.168.0.1').isGlobalUnicast()"));
  CHECK(is_true("!ip('255.255.255.255').isGlobalUnicast()"));
  CHECK(is_true("ip('2001:db8::abcd').isGlobalUnicast()"));
  CHECK(is_true("!ip('ff00::1').isGlobalUnicast()"));
  CHECK(run("string(ip('127.0.0.1'))") == "\"127.0.0.1\"");
  CHECK(run("string(ip('2001:DB8::1'))") == "\"2001:db8::1\"");
  CHECK(is_true("ip('::1') == ip('0:0::1')"));
  CHECK(run("type(ip('::1'))") == "net.IP");
  CHECK(run("ip('x')").find("error: IP Address \"x\" parse error") == 0);
}

TEST_CASE("cidr") {
  CHECK(is_true("cidr('192.168.0.0/16').containsIP(ip('192.168.0.1'))"));
  CHECK(is_true("cidr('192.168.0.0/16').containsIP('192.168.0.1')"));
  CHECK(is_true("!cidr('192.168.0.0/16').containsIP('10.0.0.1')"));
  CHECK(is_true("!cidr('192.168.0.0/16').containsIP('::1')"));
  CHECK(is_true("cidr('192.168.0.0/24').containsCIDR(cidr('192.168.0.0/25'))"));
  CHECK(is_true("cidr('192.168.0.0/24').containsCIDR('192.168.0.0/25')"));
  CHECK(is_true("!cidr('192.168.0.0/24').containsCIDR('192.168.0.0/23')"));
  CHECK(is_true("cidr('192.168.0.1/24').ip() == ip('192.168.0.1')"));
  CHECK(is_true("cidr('192.168.0.1/24').masked() == cidr('192.168.0.0/24')"));
  CHECK(run("cidr('192.168.0.0/24').prefixLength()") == "24");
  CHECK(run("string(cidr('::1/128'))") == "\"::1/128\"");
  CHECK(run("string(cidr('2001:db8::1/32').masked())") == "\"2001:db8::/32\"");
  CHECK(is_true("isCIDR('192.168.0.0/16')"));
  CHECK(is_true("!isCIDR('192.168.0.0')"));
  CHECK(is_true("!isCIDR('192.168.0.0/33')"));
  CHECK(is_true("isCIDR('::/0')"));
  CHECK(run("type(cidr('::/0'))") == "net.CIDR");
}

namespace {

// Answers every check by a table: "SUBJECT VERB GROUP/RESOURCE/SUBRESOURCE NAMESPACE/NAME" or
// "SUBJECT VERB PATH", SUBJECT being "me" or the ServiceAccount's "ns:name".
class TableAuthz : public kw::cel::AuthzHost {
 public:
  explicit TableAuthz(std::set<std::string> allowed) : m_allowed(std::move(allowed)) {}
  kw::cel::AuthzDecision check(const kw::cel::AuthzCheck& c) const override {
    std::string subject = c.service_account ? c.service_account->first + ":" + c.service_account->second : "me";
    std::string key = subject + " " + c.verb + " ";
    key += c.resource_request ? c.group + "/" + c.resource + "/" + c.subresource + " " + c.namespace_ + "/" + c.name
                              : c.path;
    asked.push_back(key);
    if (key == "me get /broken") return {.kind = kw::cel::AuthzDecision::Kind::no_opinion, .reason = {}, .error = "down"};
    const bool allow = m_allowed.contains(key);
    return {.kind = allow ? kw::cel::AuthzDecision::Kind::allow : kw::cel::AuthzDecision::Kind::no_opinion,
            .reason = allow ? "listed" : "not listed",
            .error = {}};
  }
  mutable std::vector<std::string> asked;

 private:
  std::set<std::string> m_allowed;
};

}  // namespace

TEST_CASE("the authorizer library") {
  auto host = std::make_shared<TableAuthz>(std::set<std::string>{
      "me create apps/deployments/ web/x", "me get /healthz", "ns:sa list /pods/ ns/", "me update /pods/status web/p"});
  kw::cel::MapActivation activation;
  activation.bind("authorizer", kw::cel::authorizer_value(host, {.resource_request = true,
                                                                 .group = "",
                                                                 .resource = "pods",
                                                                 .subresource = "",
                                                                 .namespace_ = "web",
                                                                 .name = "p"}));
  const kw::cel::Env env{.variables = {{.name = "authorizer"}}};
  auto eval = [&](const std::string& source) {
    auto program = kw::cel::compile(source, env);
    REQUIRE_MESSAGE(program, program.error().message);
    auto result = program->evaluate(activation);
    return result ? result->value.debug_string() : "error: " + result.error().message;
  };
  CHECK(eval("authorizer.group('apps').resource('deployments').namespace('web').name('x').check('create').allowed()") ==
        "true");
  CHECK(eval("authorizer.group('apps').resource('deployments').namespace('web').check('create').allowed()") == "false");
  CHECK(eval("authorizer.group('apps').resource('deployments').check('create').reason()") == "\"not listed\"");
  CHECK(eval("authorizer.path('/healthz').check('get').allowed()") == "true");
  CHECK(eval("authorizer.serviceAccount('ns', 'sa').group('').resource('pods').namespace('ns').check('list').allowed()") ==
        "true");
  CHECK(eval("authorizer.requestResource.subresource('status').check('update').allowed()") == "true");
  CHECK(eval("authorizer.requestResource.check('update').allowed()") == "false");
  CHECK(eval("authorizer.path('/broken').check('get').errored()") == "true");
  CHECK(eval("authorizer.path('/broken').check('get').error()") == "\"down\"");
  CHECK(eval("authorizer.path('/healthz').check('get').errored()") == "false");
  CHECK(eval("authorizer.check('get')") == "error: no such overload");
  CHECK(host->asked.front() == "me create apps/deployments/ web/x");
}
