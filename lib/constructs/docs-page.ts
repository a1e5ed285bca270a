import { Validations } from 'aws-cdk-lib';
import { AuthorizationType, LambdaIntegration, type RestApi } from 'aws-cdk-lib/aws-apigateway';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { DOCS_ASSETS, DOCS_PATH } from '../../lambdas/functions/get-openapi/docs-page.js';

/** The route whose function serves the page: it renders that route's document. */
export const DOCS_PAGE_ROUTE = 'GetOpenApi';
export const DOCS_PAGE_FILES = Object.keys(DOCS_ASSETS);

/**
 * The API reference page on the stage, `GET /docs` and its files at `GET /docs/{asset}`: public,
 * as `GET /v1/openapi.json` it renders is, and answered by that route's function (its bundle
 * carries the renderer's files: `bundledFiles` in lambdas/config/routes.ts). Not an API operation,
 * so not in the route table or the OpenAPI document, as the local server's page is not
 * (tools/local/docs-page.ts).
 */
export const addDocsPage = (api: RestApi, fn: IFunction): void => {
  const integration = new LambdaIntegration(fn, { allowTestInvoke: false });
  const page = api.root.addResource(DOCS_PATH.slice(1));
  for (const resource of [page, page.addResource('{asset}')]) {
    const method = resource.addMethod('GET', integration, { authorizationType: AuthorizationType.NONE });
    Validations.of(method).acknowledge({
      id: 'AwsSolutions-APIG4',
      reason: 'The API reference page and its renderer files are public by design, as GET /v1/openapi.json is; they reach no data.',
    });
  }
};
