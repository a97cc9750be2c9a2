// The Kotlin binding as an Android library: the sources uniffi-bindgen generates (the same as
// the JVM jar's: their object cleaner picks Android's at run time) and the facade, with the
// native library built by cargo-ndk for each Android ABI into build/jniLibs. `make android`, at
// the repository's root, generates the sources, builds the libraries and runs this build.
plugins {
    id("com.android.library") version "9.0.0"
    `maven-publish`
}

android {
    namespace = "io.github.oxmcp"
    compileSdk = 36
    defaultConfig {
        minSdk = 24
        consumerProguardFiles("consumer-rules.pro")
    }
    sourceSets.getByName("main") {
        java.srcDirs("../../target/uniffi/kotlin", "../kotlin/src")
        jniLibs.srcDir("build/jniLibs")
    }
    publishing {
        singleVariant("release") {
            withSourcesJar()
        }
    }
}

dependencies {
    // JNA's Android build: its own libjnidispatch.so for each ABI.
    api("net.java.dev.jna:jna:5.17.0@aar")
    implementation("org.jetbrains.kotlinx:kotlinx-coroutines-android:1.10.2")
}

publishing {
    publications {
        register<MavenPublication>("release") {
            groupId = "io.github.oxmcp"
            artifactId = "oxmcp-android"
            version = "0.1.0"
            afterEvaluate { from(components["release"]) }
        }
    }
}
