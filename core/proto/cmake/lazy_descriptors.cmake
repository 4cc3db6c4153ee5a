# cmake -DIN=generated.pb.cc -DOUT=lazy/generated.pb.cc -P lazy_descriptors.cmake
#
# Copies a protoc-generated .pb.cc without its static AddDescriptorsRunner, the initializer
# that parses the file's whole serialized FileDescriptorProto into the generated pool before
# main(). Without it, protobuf registers the file (and its imports) on the first descriptor()
# or reflection call of one of its messages; kw::proto::find_message makes that call first.
# The Kubernetes files are large: registering them eagerly cost every kw process, `kw get`
# included, a few milliseconds of start-up.
file(READ "${IN}" text)
string(REGEX REPLACE
  "\n[A-Z0-9_ ]*static ::_pbi::AddDescriptorsRunner dynamic_init_dummy_[A-Za-z0-9_]+\\([^)]*\\);"
  "\n// (descriptor registration is lazy: see core/proto/cmake/lazy_descriptors.cmake)"
  lazy "${text}")
if(lazy STREQUAL text)
  message(WARNING "lazy_descriptors: no AddDescriptorsRunner in ${IN} (another protobuf version?); "
                  "its descriptors are registered at start-up")
endif()
file(WRITE "${OUT}.tmp" "${lazy}")
file(RENAME "${OUT}.tmp" "${OUT}")
