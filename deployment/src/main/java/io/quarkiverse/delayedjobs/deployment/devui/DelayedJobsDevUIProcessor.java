package io.quarkiverse.delayedjobs.deployment.devui;

import io.quarkiverse.delayedjobs.runtime.devui.DelayedJobsJsonRpcService;
import io.quarkus.deployment.IsLocalDevelopment;
import io.quarkus.deployment.annotations.BuildStep;
import io.quarkus.devui.spi.JsonRPCProvidersBuildItem;
import io.quarkus.devui.spi.page.CardPageBuildItem;
import io.quarkus.devui.spi.page.Page;

/**
 * The Dev UI card of the extension: one page with the queues of the application, a job lookup and the dead letters.
 * Only in dev mode, where the JSON-RPC service behind it (a conditional dev dependency) is on the class path.
 */
class DelayedJobsDevUIProcessor {

    @BuildStep(onlyIf = IsLocalDevelopment.class)
    CardPageBuildItem card() {
        CardPageBuildItem card = new CardPageBuildItem();
        card.addPage(Page.webComponentPageBuilder()
                .title("Queues and jobs")
                .icon("font-awesome-solid:hourglass-half")
                .componentLink("qwc-delayed-jobs-queues.js"));
        return card;
    }

    @BuildStep(onlyIf = IsLocalDevelopment.class)
    JsonRPCProvidersBuildItem jsonRpcService() {
        return new JsonRPCProvidersBuildItem(DelayedJobsJsonRpcService.class);
    }
}
