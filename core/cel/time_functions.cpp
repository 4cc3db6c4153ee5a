// Timestamp and duration getters: getFullYear, getMonth, getDate, getDayOfMonth, getDayOfWeek,
// getDayOfYear, getHours, getMinutes, getSeconds, getMilliseconds (timestamps with an optional
// time zone; durations give their totals).
#include "core/cel/functions.hpp"
#include "core/cel/time.hpp"

namespace kw::cel {

namespace {

using Kind = Value::Kind;
using Args = std::span<const Value>;
using Style = Function::Style;

enum class Field { year, month, date, day_of_month, day_of_week, day_of_year, hours, minutes,
                   seconds, milliseconds };

Value duration_field(Field field, Duration d) {
  switch (field) {
    case Field::hours: return Value(std::int64_t{d.nanos / 3600000000000});
    case Field::minutes: return Value(std::int64_t{d.nanos / 60000000000});
    case Field::seconds: return Value(std::int64_t{d.nanos / 1000000000});
    case Field::milliseconds: return Value(std::int64_t{d.nanos / 1000000});
    default: return no_such_overload();
  }
}

std::int64_t civil_field(Field field, const CivilTime& c) {
  switch (field) {
    case Field::year: return c.year;
    case Field::month: return c.month - 1;
    case Field::date: return c.day;
    case Field::day_of_month: return c.day - 1;
    case Field::day_of_week: return c.day_of_week;
    case Field::day_of_year: return c.day_of_year;
    case Field::hours: return c.hours;
    case Field::minutes: return c.minutes;
    case Field::seconds: return c.seconds;
    case Field::milliseconds: return c.milliseconds;
  }
  return 0;
}

template <Field F>
Value getter(Args args, CallContext&) {
  if (args[0].kind() == Kind::duration && args.size() == 1) {
    return duration_field(F, args[0].as_duration());
  }
  if (args[0].kind() != Kind::timestamp) return no_such_overload();
  std::string zone;
  if (args.size() == 2) {
    if (args[1].kind() != Kind::string) return no_such_overload();
    zone = args[1].as_string();
  }
  auto civil = civil_time(args[0].as_timestamp(), zone);
  if (!civil) return Value::error(civil.error().message);
  return Value(civil_field(F, *civil));
}

}  // namespace

void add_time_functions(Functions& f) {
  f.add({"getFullYear", Style::receiver, 1, 2, getter<Field::year>});
  f.add({"getMonth", Style::receiver, 1, 2, getter<Field::month>});
  f.add({"getDate", Style::receiver, 1, 2, getter<Field::date>});
  f.add({"getDayOfMonth", Style::receiver, 1, 2, getter<Field::day_of_month>});
  f.add({"getDayOfWeek", Style::receiver, 1, 2, getter<Field::day_of_week>});
  f.add({"getDayOfYear", Style::receiver, 1, 2, getter<Field::day_of_year>});
  f.add({"getHours", Style::receiver, 1, 2, getter<Field::hours>});
  f.add({"getMinutes", Style::receiver, 1, 2, getter<Field::minutes>});
  f.add({"getSeconds", Style::receiver, 1, 2, getter<Field::seconds>});
  f.add({"getMilliseconds", Style::receiver, 1, 2, getter<Field::milliseconds>});
}

}  // namespace kw::cel
