// Descriptions of batch/v1 (Job) and coordination.k8s.io/v1 (Lease).
#include <array>

#include "server/http/openapi_descriptions.hpp"

namespace kw::http::openapi {
namespace {

constexpr std::string_view k_object_metadata = "Standard object metadata: name, namespace, labels, annotations.";
constexpr std::string_view k_list_metadata = "Standard list metadata: resource version and continue token.";

constexpr std::array k_batch{
    Description{"k8s.io.api.batch.v1.Job", "Runs pods until a number of them have finished successfully."},
    Description{"k8s.io.api.batch.v1.Job.metadata", k_object_metadata},
    Description{"k8s.io.api.batch.v1.Job.spec", "Desired behaviour: the pod template, completions and parallelism."},
    Description{"k8s.io.api.batch.v1.Job.status", "Most recently observed state of the job, kept by its controller."},
    Description{"k8s.io.api.batch.v1.JobList", "A list of jobs."},
    Description{"k8s.io.api.batch.v1.JobList.metadata", k_list_metadata},
    Description{"k8s.io.api.batch.v1.JobList.items", "The jobs."},
    Description{"k8s.io.api.batch.v1.JobSpec.parallelism",
                "Most pods to run at once. Defaults to 1; 0 pauses the job."},
    Description{"k8s.io.api.batch.v1.JobSpec.completions",
                "Successful pods needed for the job to complete. Unset: any one success completes it."},
    Description{"k8s.io.api.batch.v1.JobSpec.backoffLimit", "Retries before the job is marked failed. Defaults to 6."},
    Description{"k8s.io.api.batch.v1.JobSpec.selector",
                "Label query over the job's pods. Generated from the job's uid unless manualSelector is true."},
    Description{"k8s.io.api.batch.v1.JobSpec.template",
                "Template of the pods to run; restartPolicy must be OnFailure or Never. Cannot change."},
    Description{"k8s.io.api.batch.v1.JobSpec.completionMode", "NonIndexed (the default) or Indexed."},
    Description{"k8s.io.api.batch.v1.JobSpec.suspend", "While true, no pods are created. Defaults to false."},
    Description{"k8s.io.api.coordination.v1.Lease",
                "A lease held by one holder at a time, for leader election and node heartbeats."},
    Description{"k8s.io.api.coordination.v1.Lease.metadata", k_object_metadata},
    Description{"k8s.io.api.coordination.v1.Lease.spec", "Who holds the lease, since when and for how long."},
    Description{"k8s.io.api.coordination.v1.LeaseList", "A list of leases."},
    Description{"k8s.io.api.coordination.v1.LeaseList.metadata", k_list_metadata},
    Description{"k8s.io.api.coordination.v1.LeaseList.items", "The leases."},
    Description{"k8s.io.api.coordination.v1.LeaseSpec.holderIdentity", "Identity of the current holder."},
    Description{"k8s.io.api.coordination.v1.LeaseSpec.leaseDurationSeconds",
                "Seconds other candidates wait after the last renewTime before taking the lease over."},
    Description{"k8s.io.api.coordination.v1.LeaseSpec.renewTime", "When the holder last renewed the lease."},
};

}  // namespace

std::span<const Description> batch_descriptions() { return k_batch; }

}  // namespace kw::http::openapi
