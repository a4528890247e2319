package io.quarkiverse.delayedjobs.demo;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.greaterThanOrEqualTo;
import static org.hamcrest.Matchers.hasItem;
import static org.hamcrest.Matchers.notNullValue;

import java.time.Duration;

import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;

@QuarkusTest
@WithTestResource(RedisServerResource.class)
class JobsResourceTest {

    @Test
    void schedulesFindsAndCancelsAJob() {
        given().contentType(ContentType.JSON).body("{\"text\":\"later\"}")
                .when().post("/demo/jobs/rest:later?delay=1h")
                .then().statusCode(200)
                .body("result", equalTo("CREATED"))
                .body("job.state", equalTo("PENDING"))
                .body("job.payload.text", equalTo("later"))
                .body("job.dueAt", notNullValue());

        given().contentType(ContentType.JSON).body("{\"text\":\"other\"}")
                .when().post("/demo/jobs/rest:later?delay=2h")
                .then().statusCode(200)
                .body("result", equalTo("KEPT"))
                .body("job.payload.text", equalTo("later"));

        given().when().get("/demo/jobs/rest:later")
                .then().statusCode(200)
                .body("id", equalTo("rest:later"))
                .body("queue", equalTo("demo"))
                .body("state", equalTo("PENDING"))
                .body("attempts", equalTo(0));

        given().when().get("/demo/stats")
                .then().statusCode(200)
                .body("queue", equalTo("demo"))
                .body("pending", greaterThanOrEqualTo(1))
                .body("nextDueAt", notNullValue());

        given().when().delete("/demo/jobs/rest:later")
                .then().statusCode(200).body("cancelled", equalTo(true));
        given().when().get("/demo/jobs/rest:later").then().statusCode(404);
        given().when().delete("/demo/jobs/rest:later")
                .then().statusCode(404).body("cancelled", equalTo(false));
    }

    @Test
    void aScheduledJobFiresAndIsGone() {
        given().contentType(ContentType.JSON).body("{\"text\":\"soon\"}")
                .when().post("/demo/jobs/rest:soon?delay=300ms")
                .then().statusCode(200).body("result", equalTo("CREATED"));

        Awaitility.await().atMost(Duration.ofSeconds(15)).untilAsserted(() -> given().when().get("/demo/fired")
                .then().statusCode(200).body("id", hasItem("rest:soon")));
        Awaitility.await().atMost(Duration.ofSeconds(15))
                .untilAsserted(() -> given().when().get("/demo/jobs/rest:soon").then().statusCode(404));
    }

    @Test
    void aFailingJobIsRetried() {
        given().contentType(ContentType.JSON).body("{\"text\":\"flaky\",\"failures\":1}")
                .when().post("/demo/jobs/rest:flaky?delay=0s")
                .then().statusCode(200);

        Awaitility.await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> given().when().get("/demo/fired")
                .then().body("findAll { it.id == 'rest:flaky' && it.succeeded }.attempt", hasItem(2)));
    }

    @Test
    void refusesBadArguments() {
        given().contentType(ContentType.JSON).body("{}")
                .when().post("/demo/jobs/rest:bad?delay=soon")
                .then().statusCode(400).body("error", containsString("delay"));
        given().contentType(ContentType.JSON).body("{}")
                .when().post("/demo/jobs/rest:bad?delay=-1s")
                .then().statusCode(400).body("error", containsString("delay must not be negative"));
        given().contentType(ContentType.JSON).body("{}")
                .when().post("/demo/jobs/rest:bad?onConflict=MAYBE")
                .then().statusCode(400).body("error", containsString("onConflict"));
    }
}
