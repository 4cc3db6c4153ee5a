#include <doctest/doctest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "cli/client/manifest.hpp"

namespace fs = std::filesystem;

namespace {

// A temporary directory removed at the end of the test.
class TempDir {
 public:
  TempDir() {
    std::string pattern = (fs::temp_directory_path() / "kw-verbs-XXXXXX").string();
    m_path = mkdtemp(pattern.data());
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(m_path, ec);
  }
  fs::path write(const std::string& name, const std::string& text) const {
    const fs::path file = m_path / name;
    fs::create_directories(file.parent_path());
    std::ofstream(file) << text;
    return file;
  }
  const fs::path& path() const { return m_path; }

 private:
  fs::path m_path;
};

std::string pod_yaml(const std::string& name) {
  return "apiVersion: v1\nkind: Pod\nmetadata:\n  name: " + name + "\nspec:\n  containers:\n  - name: c\n    image: nginx\n";
}

std::vector<std::string> names_of(const std::vector<kw::cli::Manifest>& manifests) {
  std::vector<std::string> out;
  for (const auto& m : manifests) out.push_back(m.object["metadata"]["name"]);
  return out;
}

}  // namespace

TEST_CASE("a YAML stream gives every non-empty document in order") {
  auto objects = kw::cli::parse_manifests("---\n" + pod_yaml("a") + "---\n---\n# only a comment\n---\n" + pod_yaml("b"), "f.yaml");
  REQUIRE(objects);
  REQUIRE(objects->size() == 2);
  CHECK((*objects)[0]["metadata"]["name"] == "a");
  CHECK((*objects)[1]["spec"]["containers"][0]["image"] == "nginx");
}

TEST_CASE("JSON: one object, several in a row, and Lists opened into their items") {
  auto one = kw::cli::parse_manifests(R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"x"},"data":{"n":"010"}})", "f.json");
  REQUIRE(one);
  REQUIRE(one->size() == 1);
  CHECK((*one)[0]["data"]["n"] == "010");
  auto stream = kw::cli::parse_manifests("{\"kind\":\"A\",\"s\":\"}{\"}\n{\"kind\":\"B\"}\n", "f.json");
  REQUIRE(stream);
  REQUIRE(stream->size() == 2);
  CHECK((*stream)[1]["kind"] == "B");
  auto list = kw::cli::parse_manifests(
      "apiVersion: v1\nkind: List\nitems:\n- {apiVersion: v1, kind: Pod, metadata: {name: p}}\n"
      "- {apiVersion: v1, kind: Service, metadata: {name: s}}\n",
      "list.yaml");
  REQUIRE(list);
  REQUIRE(list->size() == 2);
  CHECK((*list)[1]["kind"] == "Service");
}

TEST_CASE("a directory gives its manifest files in name order, and -R adds subdirectories") {
  TempDir dir;
  dir.write("b.yaml", pod_yaml("b"));
  dir.write("a.json", R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"a"}})");
  dir.write("c.yml", pod_yaml("c1") + "---\n" + pod_yaml("c2"));
  dir.write("notes.txt", "not a manifest");
  dir.write("sub/d.yaml", pod_yaml("d"));
  std::istringstream no_input;
  auto flat = kw::cli::load_manifests({dir.path().string()}, false, no_input);
  REQUIRE(flat);
  CHECK(names_of(*flat) == std::vector<std::string>{"a", "b", "c1", "c2"});
  CHECK((*flat)[0].source == (dir.path() / "a.json").string());
  auto recursive = kw::cli::load_manifests({dir.path().string()}, true, no_input);
  REQUIRE(recursive);
  CHECK(names_of(*recursive) == std::vector<std::string>{"a", "b", "c1", "c2", "d"});
}

TEST_CASE("- reads stdin, and files and stdin can be mixed") {
  TempDir dir;
  const auto file = dir.write("x.yaml", pod_yaml("from-file"));
  std::istringstream input(pod_yaml("from-stdin"));
  auto manifests = kw::cli::load_manifests({file.string(), "-"}, false, input);
  REQUIRE(manifests);
  CHECK(names_of(*manifests) == std::vector<std::string>{"from-file", "from-stdin"});
  CHECK((*manifests)[1].source == "STDIN");
}

TEST_CASE("objects without apiVersion, kind or name are rejected with the file named") {
  TempDir dir;
  const auto bad = dir.write("bad.yaml", "metadata:\n  name: x\n");
  std::istringstream no_input;
  auto loaded = kw::cli::load_manifests({bad.string()}, false, no_input);
  REQUIRE_FALSE(loaded);
  CHECK(loaded.error().message.find("bad.yaml") != std::string::npos);
  CHECK(loaded.error().message.find("apiVersion not set, kind not set") != std::string::npos);

  const auto unnamed = dir.write("unnamed.yaml", "apiVersion: v1\nkind: Pod\nmetadata:\n  generateName: web-\n");
  CHECK_FALSE(kw::cli::load_manifests({unnamed.string()}, false, no_input));
  CHECK(kw::cli::load_manifests({unnamed.string()}, false, no_input, true));

  auto missing = kw::cli::load_manifests({(dir.path() / "nope.yaml").string()}, false, no_input);
  REQUIRE_FALSE(missing);
  CHECK(missing.error().message.find("does not exist") != std::string::npos);
  auto broken = kw::cli::parse_manifests("a: [1, 2\n", "broken.yaml");
  CHECK_FALSE(broken);
}

TEST_CASE("the items of a List are marked as such, for the client-side check kubectl makes of them") {
  std::istringstream input(pod_yaml("alone") + "---\napiVersion: v1\nkind: List\nitems:\n" +
                           "- {apiVersion: v1, kind: Pod, metadata: {name: listed}}\n");
  auto manifests = kw::cli::load_manifests({"-"}, false, input);
  REQUIRE(manifests);
  REQUIRE(manifests->size() == 2);
  CHECK_FALSE((*manifests)[0].in_list);
  CHECK((*manifests)[1].in_list);
}
